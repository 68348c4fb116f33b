-- __call present (a function) when setmetatable runs, replaced afterwards by a raw store to
-- the key it already has: no __newindex sees that store. The stand-in setmetatable installed
-- still holds the function, so the call resolves at once.
local mt = { __call = function() end }
local t = setmetatable({}, mt)
mt.__call = t
pcall(t)
return { name = "redteam", decide = function(ctx)
  local m = { __call = function() end }
  local u = setmetatable({}, m)
  m.__call = u
  pcall(u)
  error("the call resolved in one round")
end }
