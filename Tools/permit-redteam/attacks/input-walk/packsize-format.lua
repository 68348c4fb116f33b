return { name = "redteam", decide = function(ctx)
  local f = ("x"):rep(1 << 20)
  for i = 1, 1e9 do string.packsize(f) end
end }
