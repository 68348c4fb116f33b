return { name = "redteam", decide = function(ctx)
  table.concat(setmetatable({}, { __index = table.concat }), "", 1, 1 << 40)
end }
