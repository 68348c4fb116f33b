return { name = "redteam", decide = function(ctx)
  local co = false
  for i = 1, {{LINKS}} do
    local prev = co
    co = coroutine.create(function()
      local x <close> = setmetatable({}, { __close = function() if prev then coroutine.close(prev) end end })
      coroutine.yield()
    end)
    coroutine.resume(co)
  end
  coroutine.close(co)
end }
