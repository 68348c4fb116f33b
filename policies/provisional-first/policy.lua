-- provisional-first: deliver quietly from day one, ask for the full thing once it has earned it.
--
-- On iOS 12+ the first launch requests provisional authorization: no dialog, notifications go
-- straight to Notification Center, and the user sees what the app sends before deciding. The
-- real dialog comes later, after a soft prompt, when a feature that needs notifications opens
-- or once the user has come back often enough. Below iOS 12 there is no quiet mode, so the pack
-- behaves like `polite`: a soft prompt in context, the dialog only after an accept.

local copy = {
  -- Below iOS 12 this is the first ask.
  soft = {
    title   = { en = "Never miss a reminder", ["zh-Hans"] = "不错过任何提醒", ["zh-Hant"] = "不錯過任何提醒" },
    message = { en = "Allow notifications and we will remind you at the times you choose.",
                ["zh-Hans"] = "允许通知后，我们会在你选择的时间提醒你。", ["zh-Hant"] = "允許通知後，我們會在你選擇的時間提醒你。" },
    accept  = { en = "Continue", ["zh-Hans"] = "继续", ["zh-Hant"] = "繼續" },
    decline = { en = "Not now", ["zh-Hans"] = "以后再说", ["zh-Hant"] = "以後再說" },
  },
  -- While provisional the user already gets our notifications, quietly: the ask is an upgrade.
  upgrade = {
    title   = { en = "See reminders on your Lock Screen?", ["zh-Hans"] = "在锁定屏幕上显示提醒？",
                ["zh-Hant"] = "在鎖定畫面上顯示提醒？" },
    message = { en = "Right now our reminders arrive quietly in Notification Center. Allow alerts so you see them in time.",
                ["zh-Hans"] = "目前我们的提醒会静默送达通知中心。允许提醒横幅，就能及时看到它们。",
                ["zh-Hant"] = "目前我們的提醒會靜默送達通知中心。允許提醒橫幅，就能及時看到它們。" },
    accept  = { en = "Continue", ["zh-Hans"] = "继续", ["zh-Hant"] = "繼續" },
    decline = { en = "Keep quiet", ["zh-Hans"] = "保持静默", ["zh-Hant"] = "保持靜默" },
  },
  settings = {
    title   = { en = "Notifications are off", ["zh-Hans"] = "通知已关闭", ["zh-Hant"] = "通知已關閉" },
    message = { en = "Reminders need notifications. You can turn them on in Settings.",
                ["zh-Hans"] = "提醒功能需要通知权限，你可以在“设置”中开启。", ["zh-Hant"] = "提醒功能需要通知權限，你可以在「設定」中開啟。" },
    open    = { en = "Open Settings", ["zh-Hans"] = "前往设置", ["zh-Hant"] = "前往設定" },
    cancel  = { en = "Not now", ["zh-Hans"] = "以后再说", ["zh-Hant"] = "以後再說" },
  },
}

local FULL = { "alert", "sound", "badge" }

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

-- One budget of soft prompts for both the first ask and the upgrade: a user who keeps saying
-- "not now" is not asked forever, whichever wording they saw.
local function soft_prompt(ctx, c, why)
  local h = ctx.history.soft_prompt
  if h.shown >= ctx.params.max_soft_prompts then
    return { action = "none", reason = "soft prompt shown " .. h.shown .. " times, the cap" }
  end
  local wait = permit.days(gap(ctx.params.soft_gap_days, h.declined + h.dismissed))
  if permit.since(ctx, h.last_answered_at) < wait then
    return { action = "none", reason = "declined recently; waiting " .. wait // 86400 .. " days" }
  end
  return { action = "soft_prompt", title = c.title, message = c.message, accept = c.accept,
           decline = c.decline, reason = why }
end

local function settings_prompt(ctx)
  local h = ctx.history.settings_prompt
  if h.shown >= ctx.params.max_settings_prompts then
    return { action = "none", reason = "settings prompt shown " .. h.shown .. " times, the cap" }
  end
  local since = h.shown == 0 and ctx.history.denied_at or h.last_shown_at
  local wait = permit.days(gap(ctx.params.settings_backoff_days, h.shown + 1))
  if since and permit.since(ctx, since) < wait then
    return { action = "none", reason = "backing off: next settings prompt after " .. wait // 86400 .. " days" }
  end
  local c = copy.settings
  return { action = "settings_prompt", title = c.title, message = c.message, open = c.open, cancel = c.cancel,
           deep_link = ctx.capabilities.notification_settings_link and "notification_settings" or "app_settings",
           reason = "denied; this feature needs notifications" }
end

return {
  name = "provisional-first",
  params = {
    features = { "reminders" },       -- features that need notifications
    upgrade_after_launches = 4,       -- launches with quiet delivery before the upgrade is offered
    max_soft_prompts = 3,             -- first asks and upgrade offers together
    soft_gap_days = { 2, 7 },         -- after the 1st refusal wait 2 days, then 7
    max_settings_prompts = 3,
    settings_backoff_days = { 3, 7, 30 },
  },

  decide = function(ctx)
    local event, status = ctx.event.name, ctx.status

    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      -- No `provisional` option: while provisional, only a full request shows the real dialog.
      return { action = "request_permission", options = FULL, reason = "the user accepted the soft prompt" }
    end

    if (event == "app_launch" or event == "app_foreground")
        and status == "not_determined" and ctx.capabilities.provisional then
      -- Granted at once, without a dialog: nothing is spent, the real dialog stays unused.
      -- Remember the launch, so the upgrade counts launches *with* quiet delivery (an app
      -- updated to this pack after 20 launches should not offer alerts on the next one).
      return { action = "request_permission", options = { "provisional", "alert", "sound", "badge" },
               remember = { quiet_since_launch = ctx.history.launches },
               reason = "iOS 12+: start with quiet delivery" }
    end

    if event == "app_launch" and status == "provisional" then
      -- Launches only, not foregrounds: coming back from another app is no moment for a question.
      local quiet_launches = ctx.history.launches - (ctx.state.quiet_since_launch or 0)
      if quiet_launches >= ctx.params.upgrade_after_launches then
        return soft_prompt(ctx, copy.upgrade, quiet_launches .. " launches with quiet delivery; offer alerts")
      end
      return { action = "none", reason = "quiet delivery for " .. quiet_launches .. " of "
               .. ctx.params.upgrade_after_launches .. " launches" }
    end

    if event ~= "feature_opened" or not needs_notifications(ctx) then
      return nil
    end
    if status == "provisional" then
      return soft_prompt(ctx, copy.upgrade, "a feature that needs timely alerts opened while provisional")
    elseif status == "not_determined" then
      -- Below iOS 12 (or before the quiet request ran): ask politely in context.
      return soft_prompt(ctx, copy.soft, "a feature that needs notifications opened")
    elseif status == "denied" then
      return settings_prompt(ctx)
    end
    -- authorized, or an App Clip's ephemeral grant: nothing in the way.
    return nil
  end,
}
