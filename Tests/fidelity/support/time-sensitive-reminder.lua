-- time-sensitive-reminder: once granted, one reminder at 09:00 tomorrow that asks to be
-- time-sensitive (iOS 15+). What the device delivers it as depends on the entitlement.
return {
  name = "time-sensitive-reminder",

  decide = function(ctx) return nil end,

  plan_reminders = function(ctx)
    return { { day = 1, hour = 9, body = "Your table is ready", interruption_level = "time_sensitive" } }
  end,
}
