-- lessons: a language-learning app's pack, written in the product team's own words.
--
--   * Ask after the 2nd completed lesson (the user has felt the value), never at launch.
--   * A/B experiment `first_ask`: the `quiet` arm starts with provisional (quiet) delivery on
--     the first calendar day of the install, then asks for full alerts after the 2nd lesson;
--     the `soft` arm only asks after the 2nd lesson.
--   * Denied: a prompt to open Settings, only on the streak screen, at most once a week.
--   * Granted: a daily reminder at 19:00 local time, skipping a day whose lesson is done.
--   * Never a prompt after 22:00 or before 08:00 local time.

local copy = {
  ask = {
    title = { en = "Keep your streak alive", de = "Halte deine Serie am Leben" },
    message = { en = "We remind you at 19:00 if you have not practised yet that day.",
                de = "Wir erinnern dich um 19:00, wenn du an dem Tag noch nicht geübt hast." },
    accept = { en = "Continue", de = "Weiter" },
    decline = { en = "Not now", de = "Nicht jetzt" },
  },
  settings = {
    title = { en = "Reminders are off", de = "Erinnerungen sind aus" },
    message = { en = "Turn on notifications in Settings to get your 19:00 streak reminder.",
                de = "Aktiviere Mitteilungen in den Einstellungen für deine Erinnerung um 19:00." },
    open = { en = "Open Settings", de = "Einstellungen öffnen" },
    cancel = { en = "Not now", de = "Nicht jetzt" },
  },
  reminder = {
    title = { en = "Your streak is waiting", de = "Deine Serie wartet" },
    body = { en = "Five minutes of practice keep it going.", de = "Fünf Minuten Übung halten sie am Leben." },
  },
}

-- The statuses in which reminders are delivered.
local granted = { authorized = true, provisional = true, ephemeral = true }

local function soft_prompt(why)
  local c = copy.ask
  return { action = "soft_prompt", title = c.title, message = c.message, accept = c.accept, decline = c.decline,
           reason = why }
end

-- The day of the install's first launch, remembered on that launch (a calendar day, not 24 h).
local function first_day(ctx)
  return ctx.state.first_day or ctx.local_time.date
end

local function on_launch(ctx)
  local remember = { first_day = first_day(ctx) }
  if ctx.user.arms.first_ask == "quiet" and ctx.status == "not_determined" and ctx.capabilities.provisional
      and ctx.local_time.date == remember.first_day then
    return { action = "request_permission", options = { "alert", "sound", "badge", "provisional" },
             remember = remember, reason = "quiet arm, day 1: provisional delivery" }
  end
  return { action = "none", remember = remember, reason = "launch: nothing to ask" }
end

local function on_lesson(ctx)
  local remember = { last_lesson_day = ctx.local_time.date }
  local done = ctx.history.events.lesson_completed.count
  local asks_full = ctx.status == "not_determined" or ctx.status == "provisional"
  if asks_full and done >= ctx.params.ask_after_lessons and ctx.history.soft_prompt.shown == 0 then
    local decision = soft_prompt("lesson " .. done .. " completed")
    decision.remember = remember
    return decision
  end
  return { action = "none", remember = remember, reason = "lesson " .. done .. " completed" }
end

local function on_streak(ctx)
  if ctx.status ~= "denied" then
    return nil
  end
  local last = ctx.history.settings_prompt.last_shown_at
  if permit.since(ctx, last) < permit.days(ctx.params.settings_every_days) then
    return { action = "none", reason = "settings prompt shown less than " .. ctx.params.settings_every_days .. " days ago" }
  end
  local c = copy.settings
  return { action = "settings_prompt", title = c.title, message = c.message, open = c.open, cancel = c.cancel,
           deep_link = ctx.capabilities.notification_settings_link and "notification_settings" or "app_settings",
           reason = "denied; the streak screen shows what reminders are for" }
end

return {
  name = "lessons",
  locales = { "en", "de" },
  events = { "lesson_completed", "streak_opened" },
  experiments = { first_ask = { quiet = 50, soft = 50 } },
  params = {
    ask_after_lessons = 2,        -- completed lessons before the first ask
    settings_every_days = 7,      -- at most one settings prompt per this many days
    reminder_hour = 19,           -- local time of the daily reminder
    reminder_days = 7,            -- how many days ahead reminders are kept
    quiet_from = 22, quiet_to = 8, -- no prompt from 22:00 to 08:00 local
  },
  -- A reinstall does not restart the weekly settings-prompt rhythm.
  remember_durable = { history = { "settings_prompt" } },

  decide = function(ctx)
    local event = ctx.event.name
    if event == "soft_prompt_answered" and ctx.event.answer == "accept" then
      return { action = "request_permission", options = { "alert", "sound", "badge" },
               reason = "the user accepted the soft prompt" }
    end
    -- Turned off in Settings: iOS freezes the pending reminders (the app can remove none) and
    -- gives them back when the user switches on again; the next launch or foreground then drops
    -- the reminder of a day already done, as ever.
    if ctx.status == "denied" and granted[ctx.previous_status] then
      return { action = "none", reason = "turned off in Settings: iOS holds the reminders until it is switched on" }
    end
    if event == "app_launch" then
      return on_launch(ctx)
    end
    local prompting = event == "lesson_completed" or event == "streak_opened"
    if prompting and permit.within_hours(ctx, ctx.params.quiet_from, ctx.params.quiet_to) then
      local remember = event == "lesson_completed" and { last_lesson_day = ctx.local_time.date } or nil
      return { action = "none", remember = remember, reason = "quiet hours: no prompt after 22:00 or before 08:00" }
    end
    if event == "lesson_completed" then
      return on_lesson(ctx)
    elseif event == "streak_opened" then
      return on_streak(ctx)
    end
    return nil
  end,

  -- Called while notifications are granted: the whole set of reminders wanted. The core adds,
  -- rewords and removes to match, so today's reminder goes once today's lesson is done.
  plan_reminders = function(ctx)
    local c = copy.reminder
    local list = {}
    local start = ctx.state.last_lesson_day == ctx.local_time.date and 1 or 0
    for day = start, ctx.params.reminder_days - 1 do
      -- No id: the default one follows the fire date, so tomorrow's reminder keeps its
      -- identity when tomorrow becomes today.
      list[#list + 1] = { day = day, hour = ctx.params.reminder_hour, title = c.title, body = c.body }
    end
    return list
  end,
}
