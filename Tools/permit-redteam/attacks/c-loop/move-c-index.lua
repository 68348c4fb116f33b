return { name = "redteam", decide = function(ctx)
  local t = setmetatable({}, { __index = rawequal, __newindex = rawequal })
  for i = 1, 1e9 do table.move(t, 1, 100000, 2) end
end }
