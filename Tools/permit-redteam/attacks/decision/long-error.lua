return { name = "redteam", decide = function(ctx)
  error(("E"):rep(1e6))
end }
