return { name = "redteam", decide = function(ctx)
  local text = "return " .. ("''or"):rep(1500) .. "''"
  for i = 1, 1e9 do load(text) end
end }
