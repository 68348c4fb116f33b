-- polite: ask in context, never nag.
--
-- A soft pre-prompt when a feature that needs notifications opens; the system dialog only
-- after the user accepts it; after a decline, the soft prompt again with a growing gap and a
-- cap; after a denial, a prompt to open Settings with backoff and a cap, using the best deep
-- link the OS offers.

local copy = {
  soft = {
    title   = { en = "Never miss a reminder", ["zh-Hans"] = "不错过任何提醒", ["zh-Hant"] = "不錯過任何提醒" },
    message = { en = "Allow notifications and we will remind you at the times you choose.",
                ["zh-Hans"] = "允许通知后，我们会在你选择的时间提醒你。", ["zh-Hant"] = "允許通知後，我們會在你選擇的時間提醒你。" },
    accept  = { en = "Continue", ["zh-Hans"] = "继续", ["zh-Hant"] = "繼續" },
    decline = { en = "Not now", ["zh-Hans"] = "以后再说", ["zh-Hant"] = "以後再說" },
  },
  settings = {
    title   = { en = "Notifications are off", ["zh-Hans"] = "通知已关闭", ["zh-Hant"] = "通知已關閉" },
    message = { en = "Reminders need notifications. You can turn them on in Settings.",
                ["zh-Hans"] = "提醒功能需要通知权限，你可以在“设置”中开启。", ["zh-Hant"] = "提醒功能需要通知權限，你可以在「設定」中開啟。" },
    open    = { en = "Open Settings", ["zh-Hans"] = "前往设置", ["zh-Hant"] = "前往設定" },
    cancel  = { en = "Not now", ["zh-Hans"] = "以后再说", ["zh-Hant"] = "以後再說" },
  },
  -- Allowed, but alerts switched off: "turn them on" would confuse, the switch to find is Alerts.
  alerts_off = {
    title   = { en = "Alerts are off", ["zh-Hans"] = "提醒横幅已关闭", ["zh-Hant"] = "提醒橫幅已關閉" },
    message = { en = "Reminders arrive silently. Turn on Alerts in Settings to see them.",
                ["zh-Hans"] = "提醒目前会静默送达。在“设置”中打开“提醒”即可看到它们。",
                ["zh-Hant"] = "提醒目前會靜默送達。在「設定」中開啟「提醒」即可看到它們。" },
    open    = { en = "Open Settings", ["zh-Hans"] = "前往设置", ["zh-Hant"] = "前往設定" },
    cancel  = { en = "Not now", ["zh-Hans"] = "以后再说", ["zh-Hant"] = "以後再說" },
  },
}

-- The gap (in days) before asking again after the n-th unanswered or declined soft prompt;
-- the last entry repeats.
local function gap(list, n)
  if n < 1 then return 0 end
  return list[math.min(n, #list)]
end

local function needs_notifications(ctx)
  for _, name in ipairs(ctx.params.features) do
    if ctx.event.feature == name then return true end
  end
  return false
end

local function soft_prompt(ctx)
  local h = ctx.history.soft_prompt
  if h.shown >= ctx.params.max_soft_prompts then
    return { action = "none", reason = "soft prompt shown " .. h.shown .. " times, the cap" }
  end
  local refusals = h.declined + h.dismissed
  local wait = permit.days(gap(ctx.params.soft_gap_days, refusals))
  if permit.since(ctx, h.last_answered_at) < wait then
    return { action = "none", reason = "declined recently; waiting " .. wait // 86400 .. " days" }
  end
  local c = copy.soft
  return { action = "soft_prompt", title = c.title, message = c.message, accept = c.accept,
           decline = c.decline, reason = "a feature that needs notifications opened" }
end

local function settings_prompt(ctx, c, why)
  local h = ctx.history.settings_prompt
  if h.shown >= ctx.params.max_settings_prompts then
    return { action = "none", reason = "settings prompt shown " .. h.shown .. " times, the cap" }
  end
  -- The first prompt waits from the denial (a "no" deserves a few quiet days), later ones
  -- from the previous prompt.
  local since = h.shown == 0 and ctx.history.denied_at or h.last_shown_at
  local wait = permit.days(gap(ctx.params.settings_backoff_days, h.shown + 1))
  if since and permit.since(ctx, since) < wait then
    return { action = "none", reason = "backing off: next settings prompt after " .. wait // 86400 .. " days" }
  end
  return { action = "settings_prompt", title = c.title, message = c.message, open = c.open, cancel = c.cancel,
           -- iOS 15.4+ can open the app's notification page directly: one tap fewer.
           deep_link = ctx.capabilities.notification_settings_link and "notification_settings" or "app_settings",
           reason = why }
end

return {
  name = "polite",
  locales = { "en", "zh-Hans", "zh-Hant" },
  params = {
    features = { "reminders" },          -- features that need notifications
    max_soft_prompts = 3,
    soft_gap_days = { 2, 7 },           -- after the 1st refusal wait 2 days, then 7
    max_settings_prompts = 3,
    settings_backoff_days = { 3, 7, 30 },
  },

  -- The settings-prompt history lives in the Keychain too: deleting and reinstalling the app
  -- must not restart the cap and the back-off of a user who already said no three times.
  remember_durable = { history = { "settings_prompt" } },

  decide = function(ctx)
    local event = ctx.event.name
    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "the user accepted the soft prompt" }
    end
    if event ~= "feature_opened" or not needs_notifications(ctx) then
      return nil
    end
    local status = ctx.status
    if status == "not_determined" then
      return soft_prompt(ctx)
    elseif status == "denied" then
      return settings_prompt(ctx, copy.settings, "denied earlier; this feature needs notifications")
    elseif status == "authorized" and ctx.settings.alert == "disabled" then
      return settings_prompt(ctx, copy.alerts_off, "allowed, but alerts are switched off")
    end
    return nil
  end,
}
