/// What `permit new NAME` writes: a pack that passes `permit test` as written and shows each
/// part of the policy and scenario formats once, so a new author edits rather than starts
/// from a blank page. `{{NAME}}` stands for the pack's name.
enum PackTemplate {
    /// `policy.lua`.
    static let policy = #"""
        -- {{NAME}}: a starting point written by `permit new`. Every part of a policy appears once; change
        -- the copy and the rules, then run `permit test` (the contract: docs/reference/policy.md#policy).

        -- Texts are a string, or translations by locale; always include `en`.
        local copy = {
          ask = {
            title   = { en = "Stay in the loop", de = "Auf dem Laufenden bleiben" },
            message = { en = "We send a reminder when something you follow changes.",
                        de = "Wir erinnern dich, wenn sich etwas ändert, dem du folgst." },
            accept  = { en = "Continue", de = "Weiter" },
            decline = { en = "Not now", de = "Nicht jetzt" },
          },
          settings = {
            title   = { en = "Notifications are off", de = "Mitteilungen sind aus" },
            message = { en = "Turn them on in Settings to get reminders.",
                        de = "Schalte sie in den Einstellungen ein, um Erinnerungen zu bekommen." },
            open    = { en = "Open Settings", de = "Einstellungen öffnen" },
            cancel  = { en = "Not now", de = "Nicht jetzt" },
          },
          reminder = { en = "Something you follow changed", de = "Etwas, dem du folgst, hat sich geändert" },
        }

        return {
          name = "{{NAME}}",

          -- Defaults a host (or a scenario's `params:`) may override, as plain data.
          params = {
            feature = "updates",      -- the screen whose opening may ask
            settings_gap_days = 3,    -- days between prompts to open Settings
          },

          -- What survives deleting and reinstalling the app (kept in the Keychain).
          remember_durable = { history = { "settings_prompt" }, state = { "settings_asked_at" } },

          decide = function(ctx)
            local event = ctx.event.name
            permit.log("event " .. event .. ", status " .. ctx.status)

            -- The user tapped Continue on our own prompt: now the system dialog.
            if event == "soft_prompt_answered" then
              if ctx.event.answer == "accept" then
                return { action = "request_permission", options = { "alert", "sound", "badge" },
                         reason = "accepted the soft prompt" }
              end
              return { action = "none", reason = "soft prompt answered " .. ctx.event.answer }
            end

            -- Turned off in Settings: clear the pending reminders, so none is stale when it is back on.
            if ctx.status == "denied" and ctx.previous_status == "authorized" then
              return { action = "none", cancel_reminders = true, reason = "turned off in Settings" }
            end

            if event ~= "feature_opened" or ctx.event.feature ~= ctx.params.feature then
              return nil                                   -- same as { action = "none" }
            end
            if permit.within_hours(ctx, 22, 8) then       -- the user's local clock
              return { action = "none", reason = "quiet hours, 22:00 to 08:00 local" }
            end

            if ctx.status == "not_determined" then
              if ctx.history.soft_prompt.shown > 0 then
                return { action = "none", reason = "asked once already" }
              end
              local c = copy.ask
              return { action = "soft_prompt", title = c.title, message = c.message, accept = c.accept,
                       decline = c.decline, presentation = "sheet", variant = "a",
                       reason = "the feature opened; not asked yet" }
            end

            if ctx.status == "denied" then
              if permit.since(ctx, ctx.state.settings_asked_at) < permit.days(ctx.params.settings_gap_days) then
                return { action = "none", reason = "asked to open Settings recently" }
              end
              local c = copy.settings
              return { action = "settings_prompt", title = c.title, message = c.message, open = c.open,
                       cancel = c.cancel,
                       -- iOS 15.4 opens the app's notification settings directly.
                       deep_link = permit.at_least(ctx, "15.4") and "notification_settings" or "app_settings",
                       remember = { settings_asked_at = ctx.now },
                       reason = "denied, and the feature opened" }
            end
            -- Granted again: forget when Settings was offered (a Lua table cannot hold nil).
            return { action = "none", remember = { settings_asked_at = permit.forget }, reason = "status " .. ctx.status }
          end,

          -- Called while notifications are granted: one reminder tomorrow at 9:00 local time.
          plan_reminders = function(ctx)
            local alert = ctx.settings.alert == "enabled"
            return { { id = "daily", day = 1, hour = 9, minute = 0, title = "{{NAME}}", body = copy.reminder,
                       sound = true, badge = (not alert) and 1 or nil } }
          end,
        }
        """#

    /// `tests/first.yaml`: every scenario key in one story (a matrix of 4 cases).
    static let firstTest = #"""
        # One story, every part of a scenario once: the reference is docs/reference/scenarios.md#scenarios.
        name: asked in context, denied, sent to Settings
        matrix: { os: ["12.0", "16.4"], locale: [en, de] }   # 4 cases, each its own scenario
        device: { timezone: Europe/Berlin }
        user: { bucket: 7 }
        params: { settings_gap_days: 3 }
        engine: { max_prompts_per_day: 3 }
        start: "2026-01-05T08:00:00Z"
        initial: { ledger: { launches: 1 } }
        anchors:
          open: &open { event: feature_opened, feature: updates }
        steps:
          - { event: app_launch, expect: none, expect_status: not_determined }
          - { <<: *open, after: 5m,
              expect: { action: soft_prompt, title: { de: Auf dem Laufenden bleiben, default: Stay in the loop } },
              expect_trace: ["/^event feature_opened/"] }
          - { answer: accept, expect: { action: request_permission, options: [alert, sound, badge] }, expect_dialog: true }
          - { answer: deny, expect_status: denied, expect_ledger: { system_prompt.requested: 1 } }
          - { <<: *open, after: 1d,
              expect: { action: settings_prompt, reason: denied,
                        deep_link: { "<15.4": app_settings, default: notification_settings } } }
          - answer: open
          - settings: { authorization: authorized }
          - { after: 1m, event: app_foreground, expect_status: authorized,
              expect_reminders: [ { at: "2026-01-07 09:00", alert: true,
                                    body: { de: "Etwas, dem du folgst, hat sich geändert", default: Something you follow changed } } ] }
          - terminate: true                               # swiped away: the next launch is a cold start
          - { after: 2h, settings: { authorization: denied } }
          - { after: 1h, event: app_launch, expect: { action: none, reason: turned off in Settings }, expect_pending: 0 }
        """#

    /// `README.md`, in the shape of the shipped packs' READMEs.
    static let readme = #"""
        # {{NAME}}

        What this pack does, in a sentence a product manager would sign. It asks in context: nothing
        happens at launch; when the `updates` screen opens, a soft prompt says why, and the system
        dialog comes only after **Continue**. After a denial it offers Settings, at most once every
        `settings_gap_days` days, with the deep link the device supports. While notifications are on
        it plans one reminder for 9:00 the next day.

        | status when the feature opens | what the user sees |
        |---|---|
        | `not_determined` | a soft prompt, once |
        | `denied` | a prompt to open Settings (`notification_settings` on iOS 15.4+, `app_settings` below) |
        | anything else | nothing |

        ## Params

        | param | default | meaning |
        |---|---|---|
        | `feature` | `"updates"` | the feature whose `feature_opened` may ask |
        | `settings_gap_days` | `3` | days between prompts to open Settings |

        ## Scenarios

        `tests/first.yaml` tells one story on iOS 12 and 16.4, in English and German (a `matrix`): asked,
        denied, sent to Settings, turned on there; then the app is swiped away and notifications turned
        off, and the next launch (a new process) still sees the change and clears the reminder.
        Run `permit test {{NAME}}`; `permit run {{NAME}} {{NAME}}/tests/first.yaml` prints its timeline.
        """#

    /// `.luarc.json`: the Lua language server's settings (the sandbox's globals, Lua 5.4), with
    /// `{{TYPES}}` the path to Permit's `types` folder.
    static let luarc = #"""
        {
          "runtime.version": "Lua 5.4",
          "runtime.builtin": { "io": "disable", "os": "disable", "package": "disable", "debug": "disable" },
          "diagnostics.globals": ["permit"],
          "workspace.library": ["{{TYPES}}"]
        }
        """#

    /// The files, by path inside the pack, with the name filled in.
    static func files(name: String, types: String) -> [(path: String, text: String)] {
        [("policy.lua", policy), ("README.md", readme), ("tests/first.yaml", firstTest), (".luarc.json", luarc)].map {
            ($0.0, $0.1.replacingOccurrences(of: "{{NAME}}", with: name).replacingOccurrences(of: "{{TYPES}}", with: types) + "\n")
        }
    }
}
