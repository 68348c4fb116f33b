return { name = "redteam", decide = function(ctx)
  error(("E"):rep(5e5))
end }
