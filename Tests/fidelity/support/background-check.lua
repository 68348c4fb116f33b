-- background-check: at `background_refresh` it says, in its reason, the status it read before
-- and after, and asks to show an information page, which no one could see at a run in the
-- background. The platform rules are the subject, not a pack's warning.
return {
  name = "background-check",

  decide = function(ctx)
    if ctx.event.name == "background_refresh" then
      return { action = "inform", title = "Notifications changed", message = "Check them in Settings.",
               button = "OK", reason = "read " .. ctx.previous_status .. " then " .. ctx.status }
    end
    return nil
  end,
}
