return { name = "redteam", decide = function(ctx)
  local v = ("1."):rep(1 << 19) .. "1"
  local c = { platform = { version = v } }
  for i = 1, 1e9 do permit.at_least(c, v) end
end }
