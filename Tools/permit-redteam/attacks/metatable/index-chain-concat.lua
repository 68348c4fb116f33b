return { name = "redteam", decide = function(ctx)
  local first = {}
  local t = first
  for i = 1, 1999 do local n = {} setmetatable(t, { __index = n }) t = n end
  t[1] = "x"
  for i = 2, 100000 do t[i] = "x" end
  for i = 1, 1e9 do table.concat(first, "", 1, 100000) end
end }
