-- __call present (a function) when setmetatable runs, replaced afterwards by a raw store to
-- the key it already has: no __newindex sees that store.
local mt = { __call = function() end }
local t = setmetatable({}, mt)
mt.__call = t
pcall(t)
return { name = "redteam", decide = function(ctx) return { action = "none" } end }
