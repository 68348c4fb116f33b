return { name = "redteam", decide = function(ctx)
  error("\27[2J\r\u{202E}forged")
end }
