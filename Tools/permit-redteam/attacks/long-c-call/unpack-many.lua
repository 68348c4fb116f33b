return { name = "redteam", decide = function(ctx)
  local t = {} for i = 1, 20000 do t[i] = i end
  for i = 1, 1e9 do local n = select('#', table.unpack(t)) end
end }
