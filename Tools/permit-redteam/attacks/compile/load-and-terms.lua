return { name = "redteam", decide = function(ctx)
  local f, err = load("local a = ... return " .. ("a and "):rep(40000) .. "a")
  error(err)
end }
