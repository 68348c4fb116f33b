return { name = "redteam", decide = function(ctx)
  return { action = "none", notify = { title = "Alerts", body = string.rep("x", 65536) } }
end }
