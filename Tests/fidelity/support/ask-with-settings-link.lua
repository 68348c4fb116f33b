-- ask-with-settings-link: asks at launch for alert, sound, badge and provides_app_settings
-- (iOS 12+: Settings then links to the app's own notification settings), and answers the
-- link's event by naming the screen the app should show.
return {
  name = "ask-with-settings-link",

  decide = function(ctx)
    local event = ctx.event.name
    if event == "app_launch" and ctx.status == "not_determined" then
      return { action = "request_permission", options = { "alert", "sound", "badge", "provides_app_settings" },
               reason = "fidelity: ask at launch" }
    end
    if event == "notification_settings_opened" then
      return { action = "none", reason = "show the in-app notification settings" }
    end
    return nil
  end,
}
