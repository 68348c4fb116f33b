return { name = "own", decide = function(ctx) return nil end }
