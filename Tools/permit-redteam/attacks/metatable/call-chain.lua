return { name = "redteam", decide = function(ctx)
  local t = setmetatable({}, {})
  getmetatable(t).__call = t
  pcall(t)
  return { action = "none" }
end }
