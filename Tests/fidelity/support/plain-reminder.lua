-- plain-reminder: once granted, one reminder at 09:00 tomorrow that names no interruption level.
return {
  name = "plain-reminder",

  decide = function(ctx) return nil end,

  plan_reminders = function(ctx)
    return { { day = 1, hour = 9, body = "Your table is ready" } }
  end,
}
