-- pages-and-rows: what an app shows besides prompts, and how answers find their prompt.
--   * the first launch shows a welcome pre-prompt with an id; its answer, and the system
--     dialog's answer after it, carry that id back (ctx.event.prompt_id);
--   * a "no" in the system dialog, or an answer iOS gives at once, is followed by an
--     information page (inform): shown whatever the status, and no prompt; besides its OK
--     button it has one that opens Settings and leaves the page up for the user's return;
--   * the feed screen shows a label row ("Notifications are off") while notifications are
--     off, and takes it away (dismiss) once they are back on;
--   * the digest screen asks to turn Scheduled Summary off for the app while it is on;
--   * rows that stay on their screen when acted on: the inbox's "turn on" row while never
--     asked, the account screen's "Turn On" row and the status screen's row that is its own
--     button (no open text) while denied; each goes when its screen closes;
--   * a page asked for on the feed screen comes up over its label, which is there again after;
--   * the notification settings screen lists what Settings decides as rows (name and value,
--     in English or German), with its own row to open Settings;
--   * a safety check (the app event "safety_check") that finds notifications off puts up an
--     alert and, beneath it, the home screen's warning row, both at once (`row`); once they
--     are on again it takes the alert away and puts an "all on" label in the row's place.
return {
  name = "pages-and-rows",
  events = { "safety_info", "safety_check" },

  decide = function(ctx)
    local event = ctx.event.name

    if event == "app_launch" then
      if ctx.status == "not_determined" then
        return { action = "soft_prompt", id = "welcome", title = "Stay in the loop",
                 message = "We tell you when a feed you follow has new articles.",
                 accept = "Continue", decline = "Not now", reason = "first launch" }
      end
      return nil
    end

    if event == "soft_prompt_answered" then
      if ctx.event.answer == "accept" then
        return { action = "request_permission", reason = "accepted " .. tostring(ctx.event.prompt_id) }
      end
      return nil
    end

    if event == "system_prompt_answered" and not ctx.event.granted then
      return { action = "inform", id = "how_to_enable", title = "Notifications are off",
               message = "You can turn them on in Settings at any time.", button = "OK",
               open = "Open Settings", deep_link = "notification_settings",
               reason = "after " .. (ctx.event.prompt_id or "a request of its own") }
    end

    if event == "inform_answered" then
      return { action = "none", reason = tostring(ctx.event.prompt_id) .. " " .. ctx.event.answer }
    end

    if event == "feature_opened" and ctx.event.feature == "alerts" and ctx.status ~= "authorized" then
      return { action = "request_permission", reason = "the alerts screen needs notifications" }
    end

    if event == "feature_opened" and ctx.event.feature == "feed" and ctx.status == "denied" then
      return { action = "inform", presentation = "inline", id = "off_label", title = "Notifications are off",
               reason = "a label on the feed screen" }
    end

    if event == "feature_opened" and ctx.event.feature == "digest" then
      return { action = "settings_prompt", for_setting = "scheduled_delivery", deep_link = "notification_settings",
               title = "Get articles as they arrive", message = "Scheduled Summary holds our notifications for later.",
               open = "Settings", cancel = "Not now", id = "summary_off" }
    end

    local feature = ctx.event.feature
    if event == "feature_opened" and feature == "inbox" and ctx.status == "not_determined" then
      return { action = "soft_prompt", presentation = "inline", id = "inbox_row", title = "Know when replies arrive",
               message = "Turn on notifications for replies.", accept = "Turn on", reason = "a row on the inbox" }
    end
    if event == "feature_opened" and feature == "account" and ctx.status == "denied" then
      return { action = "settings_prompt", presentation = "inline", id = "account_row", title = "Notifications are off",
               message = "Turn them on in Settings.", open = "Turn On", reason = "a row on the account screen" }
    end
    if event == "feature_opened" and feature == "status" and ctx.status == "denied" then
      return { action = "settings_prompt", presentation = "inline", id = "status_row", title = "Notifications are OFF",
               message = "Fix now in Settings.", deep_link = "notification_settings",
               reason = "the status screen's row, its own button" }
    end
    if event == "feature_closed" and (feature == "inbox" or feature == "account" or feature == "status" or feature == "feed") then
      return { action = "dismiss", reason = "the " .. feature .. " screen closed" }
    end

    if event == "app_foreground" and ctx.status == "authorized" and ctx.previous_status == "denied" then
      return { action = "dismiss", reason = "notifications are on again" }
    end

    if event == "feature_opened" and feature == "notification_settings" and ctx.status ~= "not_determined" then
      local s = ctx.settings
      local function on(setting) return setting == "enabled" and { en = "On", de = "An" } or { en = "Off", de = "Aus" } end
      return { action = "settings_prompt", presentation = "inline", id = "status_list", deep_link = "notification_settings",
               title = { en = "Notifications", de = "Mitteilungen" },
               message = { en = "Change these in Settings.", de = "Ändere sie in den Einstellungen." },
               rows = { { name = { en = "Alerts", de = "Hinweise" }, value = on(s.alert) },
                        { name = { en = "Time Sensitive", de = "Dringliche Mitteilungen" }, value = on(s.time_sensitive) } },
               reason = "the settings screen lists what Settings decides" }
    end

    if event == "safety_check" then
      if ctx.status == "authorized" then
        return { action = "dismiss", reason = "the check finds notifications on",
                 row = { action = "inform", id = "all_on", title = "All alerts are on" } }
      end
      return { action = "settings_prompt", id = "unsafe_alert", title = "Alerts are off",
               message = "You will miss safety alerts.", open = "Settings", cancel = "Later",
               reason = "the check finds notifications off",
               row = { action = "settings_prompt", id = "unsafe_row", title = "Safety alerts are off",
                       message = "Tap to fix in Settings." } }
    end
    if event == "settings_prompt_answered" and (ctx.event.prompt_id == "unsafe_alert" or ctx.event.prompt_id == "unsafe_row") then
      return { action = "none", reason = ctx.event.prompt_id .. " " .. ctx.event.answer }
    end

    if event == "safety_info" then
      return { action = "inform", id = "safety", title = "About alerts",
               message = "Alerts may arrive late when the phone is in Low Power Mode.", button = "Got it",
               reason = "the user asked what alerts do" }
    end
    return nil
  end,
}
