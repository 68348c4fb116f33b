-- The same comparison on a long string only the host made (a parameter): `a < a` walks it
-- piece by piece as two strings would.
return { name = "redteam", params = { long = "" }, decide = function(ctx)
  local a = ctx.params.long
  local n = 0
  for i = 1, 1e9 do if a < a then n = n + 1 end end
end }
