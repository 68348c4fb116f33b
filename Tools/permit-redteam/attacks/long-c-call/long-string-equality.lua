local s = string.rep('x', 1 << 20)

return { name = "redteam", decide = function(ctx)
  local a, b = s .. "", string.rep('x', 1 << 20)
  local n = 0
  for i = 1, 1e9 do if a == b then n = n + 1 end end
end }
