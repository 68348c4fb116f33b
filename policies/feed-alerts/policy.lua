-- feed-alerts: the notification flow of an RSS reader with per-feed "new article" alerts, ported
-- one to one from NetNewsWire for iOS (Ranchero-Software/NetNewsWire, commit
-- 834decfad37802ef24d8a74897427a9eee57afdd, 2026-08-22). What each part follows:
--   * every launch requests alerts, sounds and badges, and registers for pushes when granted
--     (iOS/AppDelegate.swift, application(_:didFinishLaunchingWithOptions:));
--   * the feed inspector's "Notify About New Articles" switch: while denied, the "Enable
--     Notifications" alert with Open Settings and Dismiss; while authorized, nothing to ask;
--     otherwise the system dialog; the inspector registers for pushes when it reads authorized,
--     as it appears and as the app returns to the foreground
--     (iOS/Inspector/FeedInspectorViewController.swift);
--   * the account's "New Article Notifications" sheet: while not determined or denied, its
--     "Notifications Disabled" view with an Open Settings button, replaced by the list of feeds
--     once the app becomes active with notifications authorized
--     (iOS/Account/AccountNotificationInspectorView.swift).
return {
  name = "feed-alerts",
  events = { "new_article_notifications_toggled" },
  -- The app registers for pushes only when an answer or a read says granted (below), never by default.
  remote_registration = "keep",
  review_exceptions = {
    ["asks-at-launch"] = "NetNewsWire requests at every launch; after the first answer iOS answers at once, without a dialog",
    ["cold-ask-on-app-event"] = "the event is the user turning on a feed's \"Notify About New Articles\" switch, which says why",
  },

  decide = function(ctx)
    local event = ctx.event.name
    local feature = ctx.event.feature
    local authorized = ctx.status == "authorized"

    if event == "app_launch" then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "every launch requests alerts, sounds and badges" }
    end

    -- The request's completion handler: registerForRemoteNotifications() when granted.
    if event == "system_prompt_answered" then
      if ctx.event.granted then
        return { action = "none", remote_registration = "register", reason = "granted: register for pushes" }
      end
      return { action = "none", reason = "not granted: the switch turns back" }
    end

    -- The feed inspector reads the status as it appears and as the app returns to the foreground.
    if event == "feature_opened" and feature == "feed_inspector" then
      return { action = "none", remember = { inspector_open = true },
               remote_registration = authorized and "register" or nil, reason = "the feed inspector read " .. ctx.status }
    end
    if event == "feature_closed" and feature == "feed_inspector" then
      return { action = "none", remember = { inspector_open = false }, reason = "the feed inspector closed" }
    end

    if event == "new_article_notifications_toggled" then
      if ctx.status == "denied" then
        return { action = "settings_prompt", id = "enable_notifications", deep_link = "app_settings",
                 title = "Enable Notifications", message = "Notifications need to be enabled in the Settings app.",
                 open = "Open Settings", cancel = "Dismiss", reason = "the switch while notifications are denied" }
      end
      if authorized then
        return { action = "none", reason = "authorized: the feed's switch is saved" }
      end
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "the switch while notifications are " .. ctx.status }
    end

    if event == "settings_prompt_answered" then
      return { action = "none", reason = "answered " .. tostring(ctx.event.prompt_id) .. ": " .. ctx.event.answer }
    end

    -- The account's sheet: its "Notifications Disabled" view, with a button to Settings.
    if event == "feature_opened" and feature == "account_notifications" then
      if ctx.status == "not_determined" or ctx.status == "denied" then
        return { action = "settings_prompt", presentation = "inline", id = "notifications_disabled",
                 deep_link = "app_settings", title = "Notifications Disabled",
                 message = "Enable Notifications in Settings", open = "Open Settings",
                 remember = { account_sheet_open = true }, reason = "the sheet while notifications are " .. ctx.status }
      end
      return { action = "none", remember = { account_sheet_open = true }, reason = "the sheet lists the feeds" }
    end
    if event == "feature_closed" and feature == "account_notifications" then
      return { action = "dismiss", remember = { account_sheet_open = false }, reason = "the sheet closed" }
    end

    if event == "app_foreground" then
      if ctx.state.account_sheet_open and authorized and ctx.previous_status ~= "authorized" then
        return { action = "dismiss", remote_registration = ctx.state.inspector_open and "register" or nil,
                 reason = "authorized now: the sheet lists the feeds instead" }
      end
      if ctx.state.inspector_open and authorized then
        return { action = "none", remote_registration = "register", reason = "the feed inspector read authorized" }
      end
    end
    return nil
  end,
}
