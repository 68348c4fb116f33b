return {
  name = 'bad',
  decide = function(ctx)
    if ctx.event.name == 'app_launch' then return nil end
    error('untested')
  end,
}
