-- cancel-when-off: once granted, a reminder at 09:00 on each of the next three days; when the
-- user turns notifications off in Settings it asks for every pending reminder to be removed
-- (`cancel_reminders`), as an app that wants nothing stale left waiting would.
return {
  name = "cancel-when-off",

  decide = function(ctx)
    if ctx.status == "denied" and ctx.previous_status == "authorized" then
      return { action = "none", cancel_reminders = true, reason = "turned off: remove the reminders" }
    end
    return nil
  end,

  plan_reminders = function(ctx)
    return {
      { day = 1, hour = 9, body = "Day one" },
      { day = 2, hour = 9, body = "Day two" },
      { day = 3, hour = 9, body = "Day three" },
    }
  end,
}
