return { name = "redteam", decide = function(ctx)
  local t = setmetatable({}, { __mode = "k" })
end }
