-- time-change-prompt: on `significant_time_change` it logs the local clock it was told and, on
-- the first local day it hears one, shows a soft prompt ("A new day"); it does nothing else.
-- The fidelity scenarios use it to show when iOS sends the event and that what the policy does
-- with it (a log line, a prompt) is kept.
return {
  name = "time-change-prompt",

  decide = function(ctx)
    if ctx.event.name ~= "significant_time_change" then return nil end
    local t = ctx.local_time
    permit.log("time change " .. t.date .. " " .. t.hour .. ":" .. t.minute .. " " .. t.timezone)
    if ctx.state.prompted then return { action = "none", reason = "already prompted" } end
    ctx.state.prompted = true
    return { action = "soft_prompt", title = "A new day", message = "Shall we remind you?", accept = "Yes",
             decline = "No", reason = "time change" }
  end,
}
