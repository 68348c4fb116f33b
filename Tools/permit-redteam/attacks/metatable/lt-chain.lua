-- A metamethod Lua calls (__lt) that is a table whose own __call loops.
return { name = "redteam", decide = function(ctx)
  local mt = { __call = function() end }
  local loop = setmetatable({}, mt)
  mt.__call = loop
  local v = setmetatable({}, { __lt = loop })
  for i = 1, 1e9 do pcall(function() return v < v end) end
end }
