-- Small values, filled again and again: each call walks the text and looks up every
-- placeholder, none of which allocates much.
return { name = "redteam", decide = function(ctx)
  local n = 0
  for i = 1, 1e8 do n = n + #permit.copy("bomb", { a = "" }).en end
  return { action = "none", reason = tostring(n) }
end }
