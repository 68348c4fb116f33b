-- exposure-alerts: the notification flow of Germany's Corona-Warn-App for iOS, ported from its source
-- (corona-warn-app/cwa-app-ios, commit 02c629b695e64643b3d8a06dff290eb59ae14ad3, version 3.2.3,
-- 2023-05-16). Its texts, the app's own in English and German, are in copy/. What each part
-- follows (paths under src/xcode/ENA/ENA/Source/):
--   * the onboarding's last page, "Receive warnings and identify risks": one button, Next, that
--     requests alerts, sounds and badges; whatever the answer, the onboarding goes on
--     (Scenes/Onboarding/OnboardingInfoViewController.swift); in hibernation, from 2023-05-01 on
--     the device's calendar, the onboarding ends before that page
--     (AppDelegate & Globals/CWAHibernationProvider.swift);
--   * Settings' "Notifications" cell, On or Off, read as the list appears and at every return to
--     the foreground (Scenes/Settings/Settings/SettingsViewController.swift);
--   * the Notifications screen, which requests as it loads and at every return to the foreground
--     and shows the answer's view with its Open Device Settings button
--     (Scenes/Settings/NotificationSettings/);
--   * the "Manage Notifications" page once after the update to 2.12, over the home screen
--     (Scenes/Onboarding/DeltaOnboarding/NotificationRework/, DeltaOnboardingProtocols.swift).
-- The app never registers for remote notifications: it has no APNs entitlement.

-- On (authorized or provisional) or Off, as the Settings list reads it.
local function on(status)
  return status == "authorized" or status == "provisional"
end

-- The list's "Notifications" cell: its name and its state, nothing to tap in place.
local function cell(ctx, why)
  local state = on(ctx.status) and "on" or "off"
  return { action = "inform", presentation = "inline", id = "notifications_cell",
           title = permit.copy("settings.notifications"), message = permit.copy("settings." .. state),
           reason = why .. ": the Notifications cell reads " .. state }
end

-- The Notifications screen's view for the request's answer: its status line (Notifications,
-- On or Off), the box and its Open Device Settings button; the On view links to the FAQ's
-- notification settings (a web page, per language).
local function screen(granted)
  local view = granted and "on" or "off"
  return { action = "settings_prompt", presentation = "inline", id = "notifications_" .. view,
           deep_link = "app_settings", title = permit.copy("screen." .. view .. ".title"),
           rows = { { name = permit.copy("settings.notifications"), value = permit.copy("settings." .. view) } },
           message = permit.copy("screen." .. view .. ".message"), open = permit.copy("screen.open"),
           link = granted and permit.copy("faq.link") or nil, url = granted and permit.copy("faq.url") or nil,
           reason = "the Notifications screen shows its " .. view .. " view" }
end

-- The page after the update to 2.12: Continue closes it; Open Device Settings opens the app's
-- page in Settings and leaves it up, so it stays until closed, also across Settings; its FAQ
-- link leaves it up too.
local function rework(why)
  return { action = "inform", presentation = "sheet", id = "notification_rework",
           title = permit.copy("rework.title"), message = permit.copy("rework.message"),
           button = permit.copy("rework.button"), open = permit.copy("rework.open"), deep_link = "app_settings",
           link = permit.copy("faq.link"), url = permit.copy("faq.url"), reason = why }
end

return {
  name = "exposure-alerts",
  locales = { "en", "de" },
  events = { "onboarding_stay_informed" },
  -- The day hibernation starts, on the device's calendar (the app's hibernationStartDateDefault).
  params = { hibernation_start = "2023-05-01" },
  -- No APNs: no decision registers.
  remote_registration = "keep",

  decide = function(ctx)
    local event = ctx.event.name
    local feature = ctx.event.feature
    local state = ctx.state

    -- A cold start begins on the home screen. The first launch of 2.12 or later after an older
    -- version owes the page (onboardingVersion below 2.12, the page not finished).
    if event == "app_launch" then
      local before = ctx.app.previous_version
      local owed = before ~= nil and not permit.version_at_least(before, "2.12")
        and permit.version_at_least(ctx.app.version, "2.12")
      return { action = "none", reason = owed and "updated from " .. before .. ": the page is owed" or "launch",
               remember = { settings_open = permit.forget, screen_open = permit.forget, rework_due = owed or nil } }
    end

    if event == "onboarding_stay_informed" then
      if ctx.local_time.date >= ctx.params.hibernation_start then
        return { action = "none", reason = "hibernation: the onboarding ends after the privacy page" }
      end
      -- Finishing the onboarding records this version as onboarded: no page after it.
      return { action = "inform", presentation = "sheet", id = "always_stay_informed",
               title = permit.copy("onboarding.title"), message = permit.copy("onboarding.message"),
               button = permit.copy("onboarding.button"), remember = { rework_due = permit.forget },
               reason = "the onboarding's notifications page" }
    end

    if event == "inform_answered" then
      local page, answer = ctx.event.prompt_id, ctx.event.answer
      if page == "always_stay_informed" and answer == "ok" then
        return { action = "request_permission", options = { "alert", "sound", "badge" },
                 reason = "always_stay_informed ok: Next requests" }
      end
      if page == "notification_rework" and (answer == "open" or answer == "link") then
        local opened = answer == "open" and "Settings opens" or "the FAQ opens"
        return { action = "none", reason = "notification_rework " .. answer .. ": " .. opened .. ", the page stays" }
      end
      if page == "notification_rework" then
        return { action = "none", remember = { rework_due = permit.forget },
                 reason = "notification_rework " .. answer .. ": finished" }
      end
      return { action = "none", reason = tostring(page) .. " " .. answer .. ": back to the page before" }
    end

    -- The onboarding goes on whatever the answer; the Notifications screen shows it.
    if event == "system_prompt_answered" then
      if state.screen_open then
        return screen(ctx.event.granted)
      end
      return { action = "none", reason = "the onboarding goes on, " .. (ctx.event.granted and "granted" or "not granted") }
    end

    if event == "feature_opened" and feature == "home" and state.rework_due then
      return rework("the home screen appears and the page is owed")
    end
    if event == "feature_opened" and feature == "settings" then
      local row = cell(ctx, "the Settings list appears")
      row.remember = { settings_open = true }
      return row
    end
    if event == "feature_opened" and feature == "notification_settings" then
      return { action = "request_permission", options = { "alert", "sound", "badge" }, remember = { screen_open = true },
               reason = "the Notifications screen requests as it loads" }
    end
    if event == "feature_closed" and feature == "notification_settings" then
      if state.settings_open then
        local row = cell(ctx, "back on the Settings list")
        row.remember = { screen_open = permit.forget }
        return row
      end
      return { action = "dismiss", remember = { screen_open = permit.forget }, reason = "the Notifications screen closed" }
    end
    if event == "feature_closed" and feature == "settings" then
      return { action = "dismiss", remember = { settings_open = permit.forget, screen_open = permit.forget },
               reason = "the Settings list closed" }
    end

    if event == "settings_prompt_answered" then
      return { action = "none", reason = tostring(ctx.event.prompt_id) .. " " .. ctx.event.answer }
    end

    if event == "app_foreground" then
      if state.screen_open then
        return { action = "request_permission", options = { "alert", "sound", "badge" },
                 reason = "the Notifications screen requests at every return" }
      end
      if state.settings_open and on(ctx.status) ~= on(ctx.previous_status) then
        return cell(ctx, "the Settings list reads again")
      end
    end
    return nil
  end,
}
