return { name = 'good', decide = function(ctx) return { action = 'none', reason = 'fine' } end }
