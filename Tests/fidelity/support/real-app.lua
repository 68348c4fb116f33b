-- real-app: the notification flow open-source apps (a chat client, a home-automation app, a
-- browser, a social client, a video-call app) share, written as they behave:
--   * every launch requests authorization; after the first answer iOS answers at once;
--   * the notifications screen shows an inline row, never a dialog: "Turn on" (which asks)
--     while the dialog can still come, "Go to Settings" once denied, "Notification settings"
--     while notifications are on;
--   * a "Turn on" button elsewhere (the app event turn_on_tapped) opens Settings at once when
--     the user denied, or asks while the dialog can still come;
--   * push registration follows the app's own switch (push_switch, property `on`): off
--     unregisters, and launches then leave registration alone.
-- params.open_at_launch makes it try to open Settings at launch, which the core refuses.
return {
  name = "real-app",
  params = { open_at_launch = false, deep_link = "notification_settings" },
  events = { "turn_on_tapped", "push_switch" },

  decide = function(ctx)
    local event = ctx.event.name
    local pushes_off = ctx.state.pushes_off == true
    local keep = pushes_off and "keep" or nil

    if event == "app_launch" then
      if ctx.params.open_at_launch and ctx.status == "denied" then
        return { action = "open_settings", deep_link = ctx.params.deep_link, reason = "denied: straight to Settings" }
      end
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               remote_registration = keep, reason = "request at every launch" }
    end
    if event == "system_prompt_answered" then
      return { action = "none", remote_registration = keep, reason = "the answer came" }
    end
    if event == "push_switch" then
      local on = ctx.event.properties.on == true
      return { action = "none", remote_registration = on and "register" or "unregister",
               remember = { pushes_off = not on }, reason = on and "pushes switched on" or "pushes switched off" }
    end
    if event == "feature_opened" and ctx.event.feature == "notifications" then
      if ctx.status == "not_determined" then
        return { action = "soft_prompt", presentation = "inline", title = "Notifications are off",
                 message = "Turn them on to hear about new messages.", accept = "Turn on",
                 reason = "the row while the dialog can still come" }
      elseif ctx.status == "denied" then
        return { action = "settings_prompt", presentation = "inline", title = "Notifications are off",
                 message = "Turn them on in Settings to hear about new messages.", open = "Go to Settings",
                 deep_link = ctx.params.deep_link, reason = "the row while denied" }
      end
      return { action = "settings_prompt", presentation = "inline", title = "Notification settings",
               message = "Sounds, banners and previews.", open = "Open", deep_link = ctx.params.deep_link,
               reason = "the row while notifications are on" }
    end
    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      return { action = "request_permission", reason = "the row's Turn on" }
    end
    if event == "turn_on_tapped" then
      if ctx.status == "not_determined" then
        return { action = "request_permission", reason = "the tap asks while the dialog can come" }
      end
      return { action = "open_settings", deep_link = ctx.params.deep_link, reason = "the tap opens Settings" }
    end
    return nil
  end,
}
