local s = string.rep('x', 1 << 20)

return { name = "redteam", decide = function(ctx)
  local t = {} for i = 1, 20000 do t[i] = s end
  table.sort(t)
end }
