return { name = "redteam", decide = function(ctx)
  return select('#', table.unpack(setmetatable({}, { __index = table.concat }), 1, 150000))
end }
