-- notify-now: at `background_refresh` it posts a notification now (`notify`), its title in
-- English and German, whatever the status; it shows nothing. The device's delivery is the subject.
return {
  name = "notify-now",

  decide = function(ctx)
    if ctx.event.name == "background_refresh" then
      return { action = "none", notify = { id = "check", title = { en = "Check notifications", de = "Mitteilungen prüfen" },
                                           body = "Alerts may not reach you." } }
    end
    return nil
  end,
}
