return { name = "redteam", decide = function(ctx)
  local t, step = {}, (1 << 18) - 1
  for i = 1, 1 << 18 do t[-i] = true end
  for i = 1, 1 << 17 do t[i * step] = true end
  for i = 1, 1 << 18 do t[-i] = nil end
  for i = (1 << 17) + 1, 1 << 18 do t[i * step] = true end
end }
