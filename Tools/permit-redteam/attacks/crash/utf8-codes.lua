return { name = "redteam", decide = function(ctx)
  for _ in utf8.codes("a\x80") do end
end }
