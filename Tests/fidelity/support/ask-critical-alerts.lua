-- ask-critical-alerts: asks for alert, sound and badge at launch while the dialog is still to
-- come; once authorized, asks for critical alerts too while they read "disabled" (an entitled
-- app that has not had them yet). Nothing else.
return {
  name = "ask-critical-alerts",

  decide = function(ctx)
    if ctx.event.name ~= "app_launch" then return nil end
    if ctx.status == "not_determined" then
      return { action = "request_permission", options = { "alert", "sound", "badge" }, reason = "fidelity: first ask" }
    end
    if ctx.status == "authorized" and ctx.settings.critical_alert == "disabled" then
      return { action = "request_permission", options = { "alert", "sound", "badge", "critical_alert" },
               reason = "fidelity: critical alerts after the grant" }
    end
    return nil
  end,
}
