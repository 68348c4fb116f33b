return { name = "redteam", decide = function(ctx)
  local function loop() return 1 + loop() end
  error(select(2, xpcall(loop, loop)))
end }
