---@meta permit
-- Type annotations for Permit policy scripts (the contract: docs/reference/policy.md#ctx), for the Lua language server
-- (LuaLS / sumneko). Editors then complete `ctx.` fields and check decisions as you type.
-- This file is never loaded by Permit; `.luarc.json` at the repository root points LuaLS here.
-- ctx is strict at run time: reading a field a class below does not list is an error with "did you mean"
-- (docs/reference/policy.md#strict-ctx); `?` fields may be nil; table<string, ...> fields are open maps.
-- ctx describes its call: keep the values you need, not ctx (a part of a kept ctx first read after
-- its call returned is an error; docs/reference/policy.md#ctx).

---@alias PermitStatus "unknown"|"not_determined"|"denied"|"authorized"|"provisional"|"ephemeral"
---@alias PermitSettingValue "enabled"|"disabled"|"not_supported" # not_supported: not on this iOS, not asked yet, car_play not requested, critical_alert without the entitlement
---@alias PermitEventName "app_launch"|"app_foreground"|"app_background"|"feature_opened"|"feature_closed"|"soft_prompt_answered"|"system_prompt_answered"|"settings_prompt_answered"|"inform_answered"|"significant_time_change"|"notification_settings_opened"|"background_refresh"
---@alias PermitAction "none"|"soft_prompt"|"request_permission"|"settings_prompt"|"open_settings"|"inform"|"dismiss"
---@alias PermitPresentation "alert"|"banner"|"sheet"|"inline"
---@alias PermitDeepLink "app_settings"|"notification_settings"
---@alias PermitOption "alert"|"sound"|"badge"|"car_play"|"critical_alert"|"provisional"|"provides_app_settings"
---@alias PermitInterruptionLevel "passive"|"active"|"time_sensitive"|"critical"
---@alias PermitRemoteRegistration "register"|"unregister"|"keep"
---@alias PermitSettingName "alert"|"sound"|"badge"|"lock_screen"|"notification_center"|"car_play"|"critical_alert"|"time_sensitive"|"scheduled_delivery"|"live_activities"
---@alias PermitText string|table<string, string> # a string, or translations keyed by locale; include `en`
---@alias PermitScalar string|number|boolean

---@class PermitEvent
---@field name PermitEventName|string # a built-in name, or one of the app's own the policy declares (events = { ... })
---@field feature? string # feature_opened, feature_closed
---@field answer? "accept"|"decline"|"dismiss"|"open"|"cancel"|"ok"|"link" # soft_prompt_answered, settings_prompt_answered, inform_answered (ok, dismiss, open); link: its web link was opened (it stays on screen)
---@field granted? boolean # system_prompt_answered
---@field prompt_id? string # an answer: the id of the prompt, row or page it answers (system_prompt_answered: of the soft prompt accepted before the request)
---@field time_zone? string # significant_time_change: the device's new IANA zone
---@field properties? table<string, PermitScalar> # an app event of its own: what the host sent (open: a missing key is nil)

---@class PermitSettings
---@field alert PermitSettingValue
---@field sound PermitSettingValue
---@field badge PermitSettingValue
---@field lock_screen PermitSettingValue
---@field notification_center PermitSettingValue
---@field car_play PermitSettingValue
---@field critical_alert PermitSettingValue
---@field time_sensitive PermitSettingValue
---@field scheduled_delivery PermitSettingValue
---@field live_activities PermitSettingValue # iOS 16.1+: the app's Live Activities switch, apart from the notification permission

---@class PermitPlatform
---@field os "ios"
---@field version string # "12.4"
---@field major integer
---@field minor integer
---@field patch integer

---@class PermitCapabilities
---@field user_notifications boolean # iOS 10+
---@field provisional boolean # iOS 12+
---@field ephemeral boolean # iOS 14+ App Clip
---@field notification_settings_link boolean # iOS 15.4+
---@field time_sensitive boolean # iOS 15+

---@class PermitSoftPromptHistory
---@field shown integer
---@field accepted integer
---@field declined integer
---@field dismissed integer
---@field last_shown_at? integer
---@field last_answered_at? integer
---@field inline_shown integer # times shown as an inline row (presentation = "inline"), apart from `shown`
---@field inline_acted integer # times the user accepted an inline row, apart from `accepted`
---@field links integer # times the user opened its web link (the prompt stayed)

---@class PermitSystemPromptHistory
---@field requested integer
---@field shown integer
---@field answered_at? integer
---@field granted? boolean

---@class PermitSettingsPromptHistory
---@field shown integer
---@field opened integer
---@field cancelled integer
---@field last_shown_at? integer
---@field inline_shown integer # times shown as an inline row (presentation = "inline"), apart from `shown`
---@field inline_acted integer # times the user opened Settings from an inline row, apart from `opened`
---@field links integer # times the user opened its web link (the prompt stayed)

---@class PermitInformHistory
---@field shown integer # information pages, rows and labels put on screen (no prompts)
---@field ok integer
---@field dismissed integer
---@field opened integer # times its open button took the user to Settings (the page stayed)
---@field links integer # times the user opened its web link (the page stayed)
---@field last_shown_at? integer

---@class PermitFeatureHistory
---@field opened integer
---@field last_opened_at? integer
---@field last_prompt_at? integer

---@class PermitEventHistory
---@field count integer
---@field last_at? integer

---@class PermitHistory
---@field first_launch_at? integer
---@field launches integer
---@field foregrounds integer
---@field last_status PermitStatus
---@field status_changed_at? integer
---@field denied_at? integer # set when the status becomes denied, cleared when granted
---@field legacy_registered boolean # the iOS 8–9 asked-flag
---@field prompts_today integer
---@field soft_prompt PermitSoftPromptHistory
---@field system_prompt PermitSystemPromptHistory
---@field settings_prompt PermitSettingsPromptHistory
---@field inform PermitInformHistory
---@field features table<string, PermitFeatureHistory>
---@field state table<string, PermitScalar>
---@field events table<string, PermitEventHistory> # each declared event (count 0 until it happens) and each one the host sent

---@class PermitUser
---@field bucket integer # 0–99, stable per install, for A/B splits
---@field arms table<string, string> # the install's arm of each experiment the policy declares: ctx.user.arms.first_ask == "quiet"

---@class PermitLocalTime
---@field date string # the local calendar day, "2026-09-06"
---@field hour integer # 0–23, local
---@field minute integer # 0–59
---@field weekday integer # ISO: 1 = Monday … 7 = Sunday
---@field timezone string # the device's IANA zone, e.g. "Europe/Berlin"

---@class PermitApp
---@field version? string # the app's version the host gave (CFBundleShortVersionString), "2.14.1"
---@field previous_version? string # the version before, in the first process after an update; nil otherwise
---@field name? string # the app's name as the host gave it (CFBundleDisplayName), "Loop"; nil when it gave none

---@class PermitContext
---@field event PermitEvent
---@field status PermitStatus
---@field previous_status PermitStatus
---@field settings PermitSettings
---@field platform PermitPlatform # read-only
---@field capabilities PermitCapabilities # read-only
---@field history PermitHistory
---@field state table<string, PermitScalar> # what the policy remembered
---@field params table<string, any> # the policy's defaults with host or scenario overrides; read-only
---@field now integer # Unix seconds
---@field locale string # BCP 47, e.g. "zh-Hans"
---@field user PermitUser
---@field local_time PermitLocalTime # the wall clock in the device's zone, DST included
---@field app PermitApp # read-only

---@class PermitDecision
---@field action PermitAction
---@field reason? string
---@field remember? table<string, PermitScalar> # 4 KiB in all; `permit.forget` deletes a key
---@field title? PermitText # soft_prompt, settings_prompt, inform
---@field message? PermitText # soft_prompt, settings_prompt, inform (optional on an inline row)
---@field accept? PermitText # soft_prompt
---@field decline? PermitText # soft_prompt; not needed for an inline row
---@field open? PermitText # settings_prompt; inform: a second button beside `button` that opens Settings and leaves the page up
---@field cancel? PermitText # settings_prompt; not needed for an inline row
---@field presentation? PermitPresentation # default "alert"; "inline": a row in a screen, never a prompt
---@field variant? string # soft_prompt copy id for A/B tests
---@field options? PermitOption[] # request_permission; default { "alert", "sound", "badge" }
---@field deep_link? PermitDeepLink # settings_prompt, open_settings, inform (with open); default "app_settings"
---@field cancel_reminders? boolean # remove every pending reminder of the policy; plan none this event
---@field remote_registration? PermitRemoteRegistration # default: the policy's remote_registration, else register at every launch and when granted
---@field cap_exempt? string # why this prompt may pass the daily cap (prompt-cap); recorded in the decision record
---@field for_setting? PermitSettingName # settings_prompt: the setting it asks to change (turn on; scheduled_delivery: turn off); judged by settings-prompt-pointless instead of alerts
---@field button? PermitText # inform: its one button; an inline row without one is a label
---@field id? string # soft_prompt, settings_prompt, inform: 1 to 64 bytes; the answer carries it as ctx.event.prompt_id
---@field link? PermitText # soft_prompt, settings_prompt, inform (not a label): a web link's text; needs url; its answer is "link" and it stays on screen
---@field url? PermitText # with link: the page it opens, an absolute https:// address (per language like a text)
---@field rows? PermitRow[] # settings_prompt, inform: a status list below the message, at most 16: { { name = "Alerts", value = "On" } }
---@field notify? PermitNotification # any action: a local notification posted now (delivered at once), texts as a reminder's
---@field row? PermitDecision # any action but a row: the screen's row after it, beneath any modal: an inline soft_prompt, settings_prompt or inform table with its own action, or { action = "dismiss" } for none

---@class PermitRow
---@field name PermitText # the setting's name, on the row's left
---@field value PermitText # what it reads, on the right

---@class PermitReminder
---@field day? integer # days from today (local time), default 0
---@field hour? integer # default 9
---@field minute? integer
---@field title? PermitText
---@field body PermitText
---@field action? string
---@field sound? boolean # default true
---@field badge? integer
---@field id? string
---@field interruption_level? PermitInterruptionLevel # iOS 15+ (default active); time_sensitive and critical need their entitlement

---@class PermitNotification
---@field title? PermitText
---@field body PermitText
---@field action? string
---@field sound? boolean # default true
---@field badge? integer
---@field id? string # the identifier is permit.notify.<id>; a second one with the same id replaces the first in Notification Center
---@field interruption_level? PermitInterruptionLevel # iOS 15+ (default active); time_sensitive and critical need their entitlement

---@class PermitPolicy
---@field name string
---@field params? table<string, any>
---@field events? string[] # the app's own events it understands: { "lesson_completed", "streak_opened" }
---@field locales? string[] # the languages every text must cover, for permit check: { "en", "es" }
---@field decide fun(ctx: PermitContext): PermitDecision|nil
---@field plan_reminders? fun(ctx: PermitContext): PermitReminder[]|nil
---@field remember_durable? PermitDurable # what survives a reinstall (the Keychain)
---@field experiments? table<string, table<string, integer>> # { first_ask = { quiet = 50, soft = 50 } }: arms and their weights; read the install's arm as ctx.user.arms.first_ask
---@field remote_registration? PermitRemoteRegistration # every decision's default: "keep" for an app that never uses APNs
---@field review_exceptions? table<string, string> # { ["asks-at-launch"] = "why" }: permit check --review prints the reason instead of warning

---What of the ledger outlives deleting and reinstalling the app (docs/reference/policy.md#policy-remember-durable).
---@class PermitDurable
---@field history? ("soft_prompt"|"system_prompt"|"settings_prompt")[]
---@field state? string[] # keys of ctx.state, at most 16

---The helpers every policy can use.
---@class PermitHelpers
permit = {}

---@param n number
---@return integer seconds
function permit.minutes(n) end

---@param n number
---@return integer seconds
function permit.hours(n) end

---@param n number
---@return integer seconds
function permit.days(n) end

---Seconds since `t`; `math.huge` when `t` is nil (never happened).
---@param ctx PermitContext
---@param t integer|nil
---@return number
function permit.since(ctx, t) end

---Whether the device runs at least this iOS version.
---@param ctx PermitContext
---@param version string # "12.0", "15.4"
---@return boolean
function permit.at_least(ctx, version) end

---Whether the app version `version` is `minimum` or later, compared a number at a time
---("2.10" is after "2.9"); false when `version` is nil (`ctx.app.previous_version` but after an update).
---@param version string|nil # "2.14.1"
---@param minimum string # "2.0"
---@return boolean
function permit.version_at_least(version, minimum) end

---The pack's texts for `key` (copy/<locale>.yaml), as a fresh table of translations usable
---wherever a text goes: `title = permit.copy("welcome.title")`. An unknown key is an error.
---A text's placeholders (`{app}`; `{{` and `}}` write a brace) are filled from `values` in every
---language: `permit.copy("delayed", { app = ctx.app.name or "Loop" })`. A placeholder without
---a value, or a value that is not a string or a number, is an error.
---@param key string
---@param values? table<string, string|number>
---@return table<string, string>
function permit.copy(key, values) end

---Whether the local hour (`ctx.local_time.hour`) is in `[from_hour, to_hour)`: from the start
---of `from_hour` up to, not including, `to_hour`, wrapping past midnight when `from_hour` is the
---larger (`within_hours(ctx, 22, 8)` is 22:00–07:59). Hours are integers 0–23; equal hours are
---an error.
---@param ctx PermitContext
---@param from_hour integer
---@param to_hour integer
---@return boolean
function permit.within_hours(ctx, from_hour, to_hour) end

---Whether `s` begins with `prefix`, as plain text (`""` begins every string).
---@param s string
---@param prefix string
---@return boolean
function permit.starts_with(s, prefix) end

---Whether `s` ends with `suffix`, as plain text (`""` ends every string).
---@param s string
---@param suffix string
---@return boolean
function permit.ends_with(s, suffix) end

---Whether `part` occurs in `s`, as plain text (`""` occurs in every string).
---@param s string
---@param part string
---@return boolean
function permit.contains(s, part) end

---The pieces of `s` between occurrences of the plain text `sep`, in order; empty pieces are
---kept (`"a,,b"` gives `{"a", "", "b"}`, `""` gives `{""}`). `sep` must not be empty.
---@param s string
---@param sep string
---@return string[]
function permit.split(s, sep) end

---`s` without leading and trailing ASCII white space (space, `\t`, `\n`, `\v`, `\f`, `\r`).
---@param s string
---@return string
function permit.trim(s) end

---Writes to the trace (not stdout); capped.
---@param ... any
function permit.log(...) end

---Store this in `remember` to delete a key (Lua tables cannot hold nil).
---@type string
permit.forget = ""
