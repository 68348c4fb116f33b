return { name = "redteam", decide = function(ctx)
  local function f() return coroutine.wrap(f)() end
  return f()
end }
