-- Each of the text's placeholders filled with a 64 KiB value: 39 MB written from a
-- text under 2,000 bytes.
local v = string.rep('x', 1 << 16)

return { name = "redteam", decide = function(ctx)
  return { action = "none", reason = permit.copy("bomb", { a = v }).en }
end }
