-- dose-alerts: the notification flow of an insulin-dosing app (safety alerts), in English and
-- German, its texts kept as data in copy/<locale>.yaml.
--   * the first launch asks at once: alerts are what the app is for (a recorded review
--     exception, not a warning);
--   * the app never uses APNs: registration is left alone, said once on the policy;
--   * the alerts screen offers Settings for Time Sensitive alerts while they are off;
--   * an urgent glucose alert that cannot reach the user offers Settings even past the daily
--     cap, with the reason recorded;
--   * the first launch after the update to 3.0 says what the new version brings.
return {
  name = "dose-alerts",
  locales = { "en", "de" },
  remote_registration = "keep",
  events = { "glucose_alert" },
  review_exceptions = {
    ["asks-at-launch"] = "insulin dosing: the app exists to raise alerts, and onboarding explains them before the first launch ends",
  },

  decide = function(ctx)
    local event = ctx.event.name
    local granted = ctx.status == "authorized" or ctx.status == "provisional"

    if event == "app_launch" then
      local before = ctx.app.previous_version
      if before and granted and not permit.version_at_least(before, "3.0") and permit.version_at_least(ctx.app.version, "3.0") then
        return { action = "settings_prompt", for_setting = "time_sensitive", deep_link = "notification_settings",
                 title = permit.copy("whats_new.title"), message = permit.copy("whats_new.message"),
                 open = permit.copy("button.settings"), cancel = permit.copy("button.later"),
                 reason = "first launch of 3.0 after " .. before }
      end
      if ctx.status == "not_determined" then
        return { action = "request_permission", options = { "alert", "sound", "badge" }, reason = "alerts are the app's purpose" }
      end
      return nil
    end

    if event == "feature_opened" and ctx.event.feature == "alerts" then
      if granted then
        return { action = "settings_prompt", for_setting = "time_sensitive", deep_link = "notification_settings",
                 title = permit.copy("time_sensitive.title"), message = permit.copy("time_sensitive.message"),
                 open = permit.copy("button.settings"), cancel = permit.copy("button.later"),
                 reason = "Time Sensitive alerts break through Focus" }
      end
      if ctx.status == "denied" then
        return { action = "settings_prompt", deep_link = "notification_settings",
                 title = permit.copy("denied.title"), message = permit.copy("denied.message"),
                 open = permit.copy("button.settings"), cancel = permit.copy("button.later"),
                 reason = "alerts are off" }
      end
      return nil
    end

    if event == "feature_closed" and ctx.event.feature == "alerts" then
      return { action = "none", remember = { left_alerts_at = ctx.now }, reason = "left the alerts screen" }
    end

    if event == "glucose_alert" and ctx.status == "denied" then
      local level = ctx.event.properties.level or "low"
      return { action = "settings_prompt", deep_link = "notification_settings",
               title = permit.copy("alert." .. level .. ".title"), message = permit.copy("alert." .. level .. ".message"),
               open = permit.copy("button.settings"), cancel = permit.copy("button.later"),
               cap_exempt = "a glucose alert the user cannot receive must not wait for tomorrow",
               reason = "glucose alert while notifications are off" }
    end
    return nil
  end,
}
