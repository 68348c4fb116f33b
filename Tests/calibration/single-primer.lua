-- The calibration's primer: one soft prompt at the first launch, the system dialog only
-- after the user accepts it, and nothing more (no second primer, no settings prompt). Its
-- reach over the cold ask's is the primer lift docs/simulate.md ("Calibration") checks.
return {
  name = "single-primer",
  decide = function(ctx)
    local event = ctx.event.name
    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "the user accepted the primer" }
    end
    if event == "app_launch" and ctx.status == "not_determined" and ctx.history.soft_prompt.shown == 0 then
      return { action = "soft_prompt", title = { en = "Stay in the loop" },
               message = { en = "Allow notifications and we will tell you when something needs you." },
               accept = { en = "Continue" }, decline = { en = "Not now" },
               reason = "first launch: one primer" }
    end
    return nil
  end,
}
