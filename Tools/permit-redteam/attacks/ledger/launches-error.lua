return { name = "redteam", decide = function(ctx)
  error("launches " .. ctx.history.launches)
end }
