return { name = "redteam", decide = function(ctx)
  local first = {}
  local t = first
  for i = 1, 1999 do local n = {} setmetatable(t, { __index = n }) t = n end
  for i = 1, 1e9 do table.unpack(first, 1, 5000) table.concat(first, "", 1, 0) end
end }
