return { name = 'bad', decide = function(ctx) error('untested') end }
