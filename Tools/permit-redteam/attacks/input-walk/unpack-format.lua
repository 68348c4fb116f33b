return { name = "redteam", decide = function(ctx)
  local f = (" "):rep(1 << 20)
  for i = 1, 1e9 do string.unpack(f, "") end
end }
