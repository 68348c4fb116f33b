return { name = "redteam", decide = function(ctx)
  local z = ("z"):rep(1 << 20)
  for i = 1, 1e9 do tonumber(z, 36) end
end }
