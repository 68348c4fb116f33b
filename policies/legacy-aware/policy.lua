-- legacy-aware: the iOS 9 → 12 flow, done right on every version.
--
-- The status is checked on launch, on every return to the foreground (the only way to see a
-- change made in Settings) and on the register callback (which on iOS 9 is the one moment a
-- denial can be told apart from "never asked"; the core keeps that flag). A screen that needs
-- notifications then does one of three things: not asked yet → ask; denied → an alert with
-- "Go to Settings" (the app's own Settings page, the one link that works on every version and
-- passes App Review); granted → nothing in the way.

local copy = {
  settings = {
    title   = { en = "You can't receive notifications yet", ["zh-Hans"] = "你目前无法收到通知",
                ["zh-Hant"] = "你目前無法收到通知" },
    message = { en = "Turn on notifications for this app in Settings to hear about new messages.",
                ["zh-Hans"] = "请在“设置”中为本应用开启通知，以便收到新消息提醒。",
                ["zh-Hant"] = "請在「設定」中為本 App 開啟通知，以便收到新訊息提醒。" },
    open    = { en = "Go to Settings", ["zh-Hans"] = "前往设置", ["zh-Hant"] = "前往設定" },
    cancel  = { en = "Cancel", ["zh-Hans"] = "取消", ["zh-Hant"] = "取消" },
  },
}

local function needs_notifications(ctx)
  for _, name in ipairs(ctx.params.features) do
    if ctx.event.feature == name then return true end
  end
  return false
end

-- The reasons for the check events: they change nothing on screen, but explain output shows
-- what the re-read found.
local function checked(ctx)
  if ctx.previous_status ~= ctx.status and ctx.previous_status ~= "unknown" then
    return { action = "none", reason = "status changed: " .. ctx.previous_status .. " → " .. ctx.status }
  end
  return { action = "none", reason = "status checked: " .. ctx.status }
end

local function go_to_settings(ctx)
  local h = ctx.history.settings_prompt
  if h.shown >= ctx.params.max_settings_prompts then
    return { action = "none", reason = "\"Go to Settings\" shown " .. h.shown .. " times, the cap" }
  end
  -- Once per gap at most: the screen may be opened many times a day.
  if permit.since(ctx, h.last_shown_at) < permit.hours(ctx.params.settings_gap_hours) then
    return { action = "none", reason = "\"Go to Settings\" shown less than " .. ctx.params.settings_gap_hours .. "h ago" }
  end
  local c = copy.settings
  return { action = "settings_prompt", title = c.title, message = c.message, open = c.open, cancel = c.cancel,
           deep_link = "app_settings", reason = "denied; this screen needs notifications" }
end

return {
  name = "legacy-aware",
  locales = { "en", "zh-Hans", "zh-Hant" },
  params = {
    features = { "messages" },   -- screens that need notifications
    settings_gap_hours = 24,     -- at most one "Go to Settings" alert per this many hours
    max_settings_prompts = 5,
  },

  decide = function(ctx)
    local event, status = ctx.event.name, ctx.status

    if event == "app_launch" or event == "app_foreground" then
      return checked(ctx)
    end
    if event == "system_prompt_answered" then
      if ctx.event.granted then
        return { action = "none", reason = "allowed in the dialog" }
      end
      -- The register callback. Right after a "Don't Allow", pointing at Settings would argue
      -- with the user; the screen offers it next time instead. But when no dialog ever appeared
      -- in this install, iOS answered from an old denial (a reinstall it remembers): the user
      -- just asked for notifications and saw nothing, so show the way to Settings now.
      if ctx.history.system_prompt.shown == 0 then
        return go_to_settings(ctx)
      end
      return { action = "none", reason = "denied in the dialog; not arguing" }
    end
    if event ~= "feature_opened" or not needs_notifications(ctx) then
      return nil
    end

    if status == "not_determined" then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "not asked yet; this screen needs notifications" }
    elseif status == "denied" then
      return go_to_settings(ctx)
    end
    return { action = "none", reason = "granted (" .. status .. "); nothing in the way" }
  end,
}
