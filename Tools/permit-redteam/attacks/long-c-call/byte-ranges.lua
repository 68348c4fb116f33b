local s = string.rep('x', 1 << 20)

return { name = "redteam", decide = function(ctx)
  for i = 1, 1e9 do local x = { s:byte(1, 20000) } end
end }
