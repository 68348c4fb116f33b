-- insulin-alerts: the notification flow of Loop, the insulin-dosing app, ported from its source
-- (LoopKit/Loop, commit 710182e2342540c22b26af009f1ea3175f5aa0c1, version 3.5.0, 2025-03-21).
-- Its texts, the app's own in English and German, are in copy/. What each part follows:
--   * every launch asks iOS while notifications were never asked for, before the status screen
--     appears (Loop/Managers/OnboardingManager.swift, ensureNotificationAuthorization);
--   * every launch registers for remote notifications, whatever the status, for remote
--     commands (Loop/Managers/LoopAppManager.swift, initialize);
--   * the alert permissions checker (the README's table): its modal warning, played back until
--     acknowledged, also when a loop cycle in the background finds the settings unsafe; the
--     status screen's row; "Notifications Delayed" (Loop/Managers/AlertPermissionsChecker.swift,
--     Loop/Managers/Alerts/AlertManager.swift, Loop/View Controllers/StatusTableViewController.swift);
--   * the Alert Permissions screen (Loop/Views/NotificationsCriticalAlertPermissionsView.swift).

-- Which setting leaves safety alerts unable to reach the user, or nil when none does: the
-- checker's notificationsDisabled, criticalAlertsDisabled (only in builds with critical alerts)
-- and timeSensitiveNotificationsDisabled (only while alerts are not disabled).
local function unsafe(ctx)
  local s = ctx.settings
  if s.alert == "disabled" then return "alert" end
  if ctx.params.critical_alerts and s.critical_alert == "disabled" then return "critical_alert" end
  if s.time_sensitive == "disabled" then return "time_sensitive" end
  return nil
end

-- The values of the texts that name the app (Loop's %1$@): the host's name, else "Loop".
local named

-- The Alert Permissions screen: its status rows, its footer and its one button. Delivery and
-- Time Sensitive are listed only while notifications are on; Critical Alerts always, reading Off
-- only in builds with critical alerts (the checker reads it nowhere else).
local function permissions(ctx)
  local s = ctx.settings
  local function on(flag) return permit.copy(flag and "permissions.on" or "permissions.off") end
  local function row(name, value) return { name = permit.copy("permissions." .. name), value = value } end
  local alerts = s.alert ~= "disabled"
  local rows = { row("notifications", on(alerts)) }
  local key = alerts and "n1" or "n0"
  if alerts then
    local scheduled = s.scheduled_delivery == "enabled"
    rows[#rows + 1] = row("delivery", permit.copy(scheduled and "permissions.scheduled" or "permissions.immediate"))
    key = key .. (scheduled and "s" or "i")
  end
  local critical = not (ctx.params.critical_alerts and s.critical_alert == "disabled")
  rows[#rows + 1] = row("critical", on(critical))
  key = key .. (critical and "c1" or "c0")
  if alerts then
    local ts = s.time_sensitive ~= "disabled"
    rows[#rows + 1] = row("time_sensitive", on(ts))
    key = key .. (ts and "t1" or "t0")
  end
  return { action = "settings_prompt", presentation = "inline", id = "alert_permissions",
           title = permit.copy("permissions.title"), message = permit.copy("permissions.footer", named), rows = rows,
           open = permit.copy("permissions.manage"), deep_link = "notification_settings",
           reason = "the Alert Permissions screen reads " .. key }, "permissions " .. key
end

-- What the open screen shows under any alert: the Alert Permissions rows, the status screen's
-- warning row while unsafe, or nothing of the policy's. The second value names it.
local function view(ctx)
  local screen = ctx.state.screen
  if screen == "alert_permissions" then return permissions(ctx) end
  if screen == "status" and unsafe(ctx) then
    return { action = "settings_prompt", presentation = "inline", id = "safety_banner",
             title = permit.copy("banner.title"), message = permit.copy("banner.message"),
             deep_link = "notification_settings",
             reason = "the status screen's warning row: " .. unsafe(ctx) .. " off" }, "banner"
  end
  return nil, nil
end

-- Brings the row up to date: the view when it differs from the row shown, dismiss when the
-- policy's row is there and nothing should be. Remembers the row.
local function refresh(ctx, why, remember)
  local decision, shown = view(ctx)
  local current = ctx.state.shown
  if shown == current then
    return { action = "none", reason = why, remember = remember }
  end
  remember.shown = shown or permit.forget
  if decision then
    decision.remember = remember
    return decision
  end
  return { action = current and "dismiss" or "none", reason = why, remember = remember }
end

-- An alert, its retraction or a check while it stays, with the open screen's row when that
-- changed: Loop puts up both at once, the row beneath the alert.
local function with_row(ctx, decision)
  local row, shown = view(ctx)
  if shown ~= ctx.state.shown then
    if row then row.reason = nil else row = { action = "dismiss" } end
    decision.row, decision.remember.shown = row, shown or permit.forget
  end
  return decision
end

-- The modal warning: Settings opens the app's notification settings, Close closes; either
-- acknowledges it. A safety warning may not wait for tomorrow's prompt budget.
local function warning(ctx, remember)
  local off = unsafe(ctx)
  remember.alert = "warning"
  return { action = "settings_prompt", presentation = "alert", id = "unsafe_permissions",
           for_setting = off ~= "alert" and off or nil, deep_link = "notification_settings",
           title = permit.copy("warning.title"), message = permit.copy("warning.message"),
           open = permit.copy("warning.settings"), cancel = permit.copy("warning.close"),
           cap_exempt = "a safety warning: the user may miss alerts about insulin delivery and glucose",
           remember = remember, reason = off .. " off: the safety warning" }
end

-- The "Notifications Delayed" alert, with its one button, OK.
local function delayed(remember)
  remember.alert = "delayed"
  return { action = "inform", presentation = "alert", id = "notifications_delayed",
           title = permit.copy("delayed.title"), message = permit.copy("delayed.message", named),
           button = permit.copy("delayed.ok"), remember = remember,
           reason = "Scheduled Summary delays the app's notifications" }
end

-- The checker's delegate: each alert is issued once when its condition starts and retracted
-- (taken off screen) when it ends; one not acknowledged is shown again at the first check after
-- a launch. The delayed alert is judged only while safe.
local function check(ctx, why, remember)
  local state, forget = ctx.state, permit.forget
  local replay, alert = state.replay, state.alert
  remember.replay = forget
  if unsafe(ctx) then
    if not state.unsafe_issued or (replay and not state.unsafe_acked) then
      if not state.unsafe_issued then remember.unsafe_issued, remember.unsafe_acked = true, forget end
      return with_row(ctx, warning(ctx, remember))
    end
  else
    if state.unsafe_issued then
      remember.unsafe_issued, remember.unsafe_acked = forget, forget
      if alert == "warning" then alert = nil end
    end
    local scheduled = ctx.settings.scheduled_delivery == "enabled"
    if scheduled and (not state.delayed_issued or (replay and not state.delayed_acked)) then
      if not state.delayed_issued then remember.delayed_issued, remember.delayed_acked = true, forget end
      return with_row(ctx, delayed(remember))
    end
    if not scheduled and state.delayed_issued then
      remember.delayed_issued, remember.delayed_acked = forget, forget
      if alert == "delayed" then alert = nil end
    end
  end
  if alert then
    return with_row(ctx, { action = "none", reason = why .. ": the alert stays", remember = remember })
  end
  if state.alert then
    remember.alert = forget
    return with_row(ctx, { action = "dismiss", reason = why .. ": the alert retracted", remember = remember })
  end
  return refresh(ctx, why, remember)
end

return {
  name = "insulin-alerts",
  locales = { "en", "de" },
  params = {
    -- Builds with CRITICAL_ALERTS_ENABLED (the entitlement Apple grants): ask for critical
    -- alerts and count them off as unsafe.
    critical_alerts = false,
    -- Remote commands (on unless REMOTE_COMMANDS_DISABLED): register for remote notifications
    -- at every launch.
    remote_commands = true,
  },
  -- Never at a grant: the app registers at launch only.
  remote_registration = "keep",
  review_exceptions = {
    ["asks-at-launch"] = "insulin dosing: safety alerts are what the app is for, and it asks before its status screen appears, as Loop does",
  },

  decide = function(ctx)
    local event, state = ctx.event.name, ctx.state
    local register = ctx.params.remote_commands and "register" or "keep"
    named = { app = ctx.app.name or "Loop" }

    if event == "app_launch" then
      -- A new process: nothing on screen yet; alerts not acknowledged are played back.
      local remember = { screen = permit.forget, shown = permit.forget, alert = permit.forget, listening = permit.forget,
                         replay = (state.unsafe_issued and not state.unsafe_acked)
                           or (state.delayed_issued and not state.delayed_acked) or permit.forget }
      if ctx.status == "not_determined" then
        local options = { "alert", "badge", "sound" }
        if ctx.params.critical_alerts then options[4] = "critical_alert" end
        return { action = "request_permission", options = options, remote_registration = register,
                 remember = remember, reason = "never asked: asks before the status screen" }
      end
      return { action = "none", remote_registration = register, remember = remember, reason = "launch" }
    end

    if event == "system_prompt_answered" then
      return { action = "none", reason = ctx.event.granted and "granted" or "not granted" }
    end

    if event == "feature_opened" then
      local remember = { screen = ctx.event.feature }
      if ctx.event.feature == "status" then
        -- The status screen appearing starts the checker (checkNow), which then hears changes.
        remember.listening = true
        state.screen = "status"
        return check(ctx, "the status screen", remember)
      end
      state.screen = ctx.event.feature
      if state.alert then
        return { action = "none", reason = "the alert stays", remember = remember }
      end
      return refresh(ctx, "opened " .. ctx.event.feature, remember)
    end

    if event == "feature_closed" and ctx.event.feature == "alert_permissions" then
      -- Back on Alert Management: nothing of the policy's there.
      state.screen = "alert_management"
      return refresh(ctx, "back on Alert Management", { screen = "alert_management" })
    end

    if event == "app_foreground" and state.listening then
      return check(ctx, "back in the foreground", {})
    end

    if event == "background_refresh" and state.listening and unsafe(ctx) and not state.unsafe_issued then
      return { action = "none", reason = "a loop cycle: issued", remember = { unsafe_issued = true, replay = true },
               notify = { id = "unsafe_permissions", title = permit.copy("warning.title"), body = permit.copy("warning.message") } }
    end

    if event == "settings_prompt_answered" or event == "inform_answered" then
      local id, answer = ctx.event.prompt_id or "an answer", ctx.event.answer
      if id == "safety_banner" or id == "alert_permissions" then
        -- A row stays through the visit to Settings.
        if answer == "open" then return { action = "none", reason = id .. " open: the row stays" } end
        return { action = "none", reason = id .. " " .. answer, remember = { shown = permit.forget } }
      end
      local remember = { alert = permit.forget }
      if id == "unsafe_permissions" then remember.unsafe_acked = true end
      if id == "notifications_delayed" then remember.delayed_acked = true end
      -- The alert is closed; the row under it is brought up to date.
      return refresh(ctx, id .. " " .. answer, remember)
    end

    return nil
  end,
}
