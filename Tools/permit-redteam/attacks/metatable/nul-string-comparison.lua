-- `<` on strings of NUL bytes: Lua compares them with strcoll once per NUL-separated piece.
local a = ("\0"):rep(60000) .. "a"
local b = ("\0"):rep(60000) .. "b"
return { name = "redteam", decide = function(ctx)
  local n = 0
  for i = 1, 1e9 do if a < b then n = n + 1 end end
end }
