-- reminders: the mood-tracker pattern.
--
-- On launch, a primer (soft prompt) says why the app wants notifications; only a "Continue" there
-- brings up the system dialog, so the one real dialog is never spent on a user who would refuse.
-- A "Not now" is asked again on a later launch, a day apart at least, up to a cap. Once
-- granted, three reminders a day (9:00, 14:00, 20:00) for the next three days, topped up on
-- every launch and return to the foreground, as alerts when alerts are on, as badge and sound
-- when they are not. A denial is final here: the primer exists to avoid it, and nagging would
-- not bring the user back.

local copy = {
  primer = {
    title   = { en = "Track your mood", ["zh-Hans"] = "记录你的心情", ["zh-Hant"] = "記錄你的心情" },
    message = { en = "We would like to remind you to track your mood. To do it, we need your permission to send you notifications.",
                ["zh-Hans"] = "我们想提醒你记录心情。为此，我们需要你允许我们发送通知。",
                ["zh-Hant"] = "我們想提醒你記錄心情。為此，我們需要你允許我們傳送通知。" },
    accept  = { en = "Continue", ["zh-Hans"] = "继续", ["zh-Hant"] = "繼續" },
    decline = { en = "Not now", ["zh-Hans"] = "以后再说", ["zh-Hant"] = "以後再說" },
  },
  reminder = {
    title = { en = "How are you feeling?", ["zh-Hans"] = "你现在感觉怎么样？", ["zh-Hant"] = "你現在感覺怎麼樣？" },
    body  = { en = "Have you tracked your mood yet?", ["zh-Hans"] = "今天记录心情了吗？",
                ["zh-Hant"] = "今天記錄心情了嗎？" },
  },
}

-- The statuses in which reminders are delivered.
local granted = { authorized = true, provisional = true, ephemeral = true }

return {
  name = "reminders",
  params = {
    hours = { 9, 14, 20 },   -- local times of the reminders (whole hours)
    days = 3,                -- today and the next days-1 days
    max_primers = 3,         -- the primer is shown at most this many times
    primer_gap_days = 1,     -- and not again within this many days of a "Not now"
  },

  decide = function(ctx)
    local event = ctx.event.name
    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "the user accepted the primer" }
    end
    -- Turned off in Settings: nothing to do, and nothing the app could do. iOS freezes the
    -- pending reminders while notifications are off (the app reads none and can remove none)
    -- and gives them all back when the user switches on again: those still ahead then fire
    -- as planned, and the next launch or return to the foreground plans the window afresh
    -- (the core rewords what changed and removes what the plan no longer holds).
    if ctx.status == "denied" and granted[ctx.previous_status] then
      return { action = "none", reason = "turned off in Settings: iOS holds the reminders until it is switched on" }
    end
    if event ~= "app_launch" or ctx.status ~= "not_determined" then
      return nil
    end
    local h = ctx.history.soft_prompt
    if h.shown >= ctx.params.max_primers then
      return { action = "none", reason = "primer shown " .. h.shown .. " times, the cap" }
    end
    if permit.since(ctx, h.last_answered_at) < permit.days(ctx.params.primer_gap_days) then
      return { action = "none", reason = "primer declined less than " .. ctx.params.primer_gap_days .. " day(s) ago" }
    end
    local c = copy.primer
    return { action = "soft_prompt", title = c.title, message = c.message, accept = c.accept,
             decline = c.decline, reason = "launch: not asked yet" }
  end,

  -- Called by the core only while notifications are granted. The list is the whole window the
  -- policy wants: the core adds what is missing, rewords what changed (alerts switched off) and
  -- leaves the rest pending, so returning the whole window each time is what tops it up.
  plan_reminders = function(ctx)
    -- An App Clip's permission is ephemeral (hours, not days): today's reminders only.
    local days = ctx.status == "ephemeral" and 1 or ctx.params.days
    local alert = ctx.settings.alert == "enabled"
    local list = {}
    for day = 0, days - 1 do
      for _, hour in ipairs(ctx.params.hours) do
        list[#list + 1] = {
          day = day, hour = hour, minute = 0,
          title = copy.reminder.title, body = copy.reminder.body, action = "track_mood",
          sound = true,
          -- Without alerts the badge is the only thing the user sees.
          badge = (not alert) and 1 or nil,
        }
      end
    end
    return list
  end,
}
