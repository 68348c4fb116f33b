-- ask-then-remind: asks for alert, sound and badge at launch while the dialog is still to
-- come; once granted, one reminder at 09:00 tomorrow.
return {
  name = "ask-then-remind",

  decide = function(ctx)
    if ctx.event.name == "app_launch" and ctx.status == "not_determined" then
      return { action = "request_permission", options = { "alert", "sound", "badge" }, reason = "fidelity: ask at launch" }
    end
    return nil
  end,

  plan_reminders = function(ctx)
    return { { day = 1, hour = 9, body = "Your table is ready" } }
  end,
}
