local t = setmetatable({}, {})
getmetatable(t).__call = t
pcall(t)
return { name = "redteam", decide = function(ctx) return { action = "none" } end }
