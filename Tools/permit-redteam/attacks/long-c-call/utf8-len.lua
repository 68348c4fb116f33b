local s = string.rep('x', 1 << 20)

return { name = "redteam", decide = function(ctx)
  for i = 1, 1e9 do local n = utf8.len(s) end
end }
