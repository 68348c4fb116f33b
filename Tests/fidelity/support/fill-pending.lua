-- fill-pending: at launch, 64 reminders at noon on each of the next 64 days, the system's
-- whole budget; on a return to the foreground the whole set again plus 4 sooner ones this
-- afternoon (13:00–16:00): 68 wanted, 4 more than iOS keeps.
return {
  name = "fill-pending",

  decide = function(ctx) return nil end,

  plan_reminders = function(ctx)
    local list = {}
    for day = 1, 64 do list[#list + 1] = { day = day, hour = 12, body = "later" } end
    if ctx.event.name ~= "app_launch" then
      for hour = 13, 16 do list[#list + 1] = { day = 0, hour = hour, body = "sooner" } end
    end
    return list
  end,
}
