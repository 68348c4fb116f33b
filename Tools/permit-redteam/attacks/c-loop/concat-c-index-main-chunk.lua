table.concat(setmetatable({}, { __index = table.concat }), "", 1, 1 << 40)
return { name = "redteam", decide = function(ctx) return { action = "none" } end }
