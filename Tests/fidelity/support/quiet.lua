-- quiet: never asks and plans nothing. On `significant_time_change` and on
-- `notification_settings_opened` it says, in its reason, what it saw (the new zone and the
-- local wall clock; the in-app settings screen to show), so a fidelity scenario can check what
-- a policy is told. The platform rules are the subject, not a pack's primer.
return {
  name = "quiet",

  decide = function(ctx)
    local event = ctx.event.name
    if event == "significant_time_change" then
      local t = ctx.local_time
      return { action = "none",
               reason = ctx.event.time_zone .. " " .. t.date .. " " .. t.hour .. ":" .. t.minute }
    end
    if event == "notification_settings_opened" then
      return { action = "none", reason = "show the in-app notification settings" }
    end
    return nil
  end,
}
