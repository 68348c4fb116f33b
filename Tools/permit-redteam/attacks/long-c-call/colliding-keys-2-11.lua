return { name = "redteam", decide = function(ctx)
  local step = (1 << 11) - 1
  local t = {}
  for i = 1, step do t[i * step] = true end
  t[step] = nil
  t[(step + 1) * step] = true
  t[(step + 2) * step] = true
  error("the rehash finished within the limits")
end }
