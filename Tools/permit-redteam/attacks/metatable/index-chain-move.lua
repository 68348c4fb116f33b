-- table.move reads every element through a chain of 2,000 tables.
return { name = "redteam", decide = function(ctx)
  local first = {}
  local t = first
  for i = 1, 1999 do local n = {} setmetatable(t, { __index = n }) t = n end
  for i = 1, 1e9 do table.move(first, 1, 100000, 1, {}) end
end }
