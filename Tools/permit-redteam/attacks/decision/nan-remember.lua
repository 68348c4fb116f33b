return { name = "redteam", decide = function(ctx)
  return { action = "none", remember = { x = 0/0 } }
end }
