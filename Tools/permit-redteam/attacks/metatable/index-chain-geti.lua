-- Plain reads through a cycle of two small tables whose keys collide: Lua walks 2,000 tables
-- in one instruction, a collision chain in each.
return { name = "redteam", decide = function(ctx)
  local function colliding()
    local t = {}
    for i = 1, 32 do t[i * 31 + 7 + (1 << 40)] = true end
    return t
  end
  local a, b = colliding(), colliding()
  setmetatable(a, { __index = b })
  setmetatable(b, { __index = a })
  local k = 7 + (1 << 40) + 31 * 99
  local n = 0
  for i = 1, 1e9 do
    if pcall(function() return a[k] end) then n = n + 1 end
  end
end }
