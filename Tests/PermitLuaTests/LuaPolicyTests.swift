import Foundation
import PermitLuaTestSupport
import PermitSimulator
import Testing

@testable import PermitCore
@testable import PermitLua

/// Policies and contexts for the LuaPolicy tests.
private enum Fixture {
    static func policy(_ body: String, params: String = "{}", extra: String = "") throws(PolicyError) -> LuaPolicy {
        try LuaPolicy(
            source: """
                return {
                  name = "fixture",
                  params = \(params),
                  decide = function(ctx)
                \(body)
                  end,
                \(extra)
                }
                """, chunkName: "fixture.lua")
    }

    /// An engine on a simulated iOS 16.4 device running `policy`.
    static func engine(_ policy: any Policy) throws -> PermissionEngine {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let platform = Platform(version: try OSVersion(parsing: "16.4"))
        return PermissionEngine(
            policy: policy, client: try SimulatedDevice(platform: platform, clock: clock), platform: platform, clock: clock,
            configuration: EngineConfiguration(foregroundRechecks: []))
    }

    static func context(
        _ event: AppEvent = .featureOpened("diary"), status: PermissionStatus = .notDetermined, os: String = "16.4",
        params: [String: PolicyValue] = [:], history: Ledger = Ledger(), locale: String = "zh-Hans", bucket: Int = 42
    ) -> PolicyContext {
        let version = try! OSVersion(parsing: os)
        return PolicyContext(
            event: event, status: status, previousStatus: .unknown,
            settings: .typical(for: status, on: version), platform: Platform(version: version), history: history,
            params: params, now: 1_767_600_000, locale: locale, userBucket: bucket)
    }

    /// The error `decide` raises, as printed.
    static func decideError(_ body: String) -> String {
        do {
            _ = try policy(body).decide(context())
            return "no error"
        } catch {
            return error.description
        }
    }

    /// The error loading `source` raises, as printed.
    ///
    /// The VM's own limits are the app's, with the wide deadline (`LuaLimits.wideDeadline`): the
    /// subject here is the VM's message, which the deadline would otherwise replace on a loaded
    /// machine.
    static func loadError(_ source: String) -> String {
        do {
            _ = try LuaPolicy(source: source, chunkName: "broken.lua", limits: .wideDeadline)
            return "no error"
        } catch {
            return error.description
        }
    }
}

@Suite struct LuaPolicyLoadingTests {
    @Test func loadsNameParamsAndFunctions() throws {
        let policy = try Fixture.policy(
            "return nil", params: "{ renag_after_days = 3, gaps = { 3, 7 }, name = \"x\" }",
            extra: "plan_reminders = function(ctx) return {} end,")
        #expect(policy.name == "fixture")
        #expect(
            policy.defaultParams == [
                "renag_after_days": .integer(3), "gaps": .list([.integer(3), .integer(7)]), "name": .string("x"),
            ])
        #expect(policy.plansReminders)
        #expect(try !Fixture.policy("return nil").plansReminders)
    }

    @Test(arguments: [
        ("return {", "broken.lua:1: unexpected symbol near <eof>"),
        ("local x = \nreturn { name = 'x', decide = function() end }", "broken.lua:2: unexpected symbol near 'return'"),
        ("error('boom at load')", "broken.lua:1: boom at load"),
        ("return 42", "broken.lua: the file must return a table like { name = \"polite\", decide = function(ctx) ... end }, got 42"),
        ("return { decide = function() end }", "broken.lua: policy.name: missing"),
        ("return { name = 'x' }", "broken.lua: policy.decide: missing; a policy needs decide = function(ctx) ... end"),
        ("return { name = 'x', decide = 3 }", "policy.decide: missing"),
        (
            "return { name = 'x', decide = function() end, plan_reminder = function() end }",
            "broken.lua: policy.plan_reminder: not a field of a policy; did you mean \"plan_reminders\"?"
        ),
        (
            "return { name = 'x', decide = function() end, params = { f = function() end } }",
            "broken.lua: policy.params.f: expected a string, number, boolean or table, got a function"
        ),
        ("return { name = 'x', decide = function() end, params = 5 }", "policy.params: expected a table of defaults, got 5"),
        // The app's defaults (2 M instructions, 50 ms): either may end it first on a loaded machine.
        ("while true do end", "the policy ran"),
    ])
    func loadErrorsNameTheFileAndLine(source: String, expected: String) {
        let message = Fixture.loadError(source)
        #expect(message.contains(expected), "\(message)")
    }

    @Test func bytecodeIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-\(UUID().uuidString).luac")
        try Data([0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00, 0x19, 0x93]).write(to: url)
        #expect {
            try LuaPolicy.load(contentsOf: url, displayName: "compiled.luac")
        } throws: { error in
            (error as? PolicyError)?.description.hasPrefix("compiled.luac:") == true
                && (error as? PolicyError)?.description.contains("bytecode") == true
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("nope-\(UUID().uuidString).lua")
        #expect(throws: PolicyError.self) { try LuaPolicy.load(contentsOf: missing) }
    }

    @Test func paramOverridesAreValidated() throws {
        let policy = try Fixture.policy("return nil", params: "{ renag_after_days = 3, title = 'x' }")
        try policy.validate(params: ["renag_after_days": .integer(5), "title": .string("y")])
        #expect(throws: PolicyError.self) { try policy.validate(params: ["renag_days": .integer(5)]) }
        do {
            try policy.validate(params: ["renag_days": .integer(5)])
        } catch {
            #expect(error.description == "params.renag_days: fixture has no param \"renag_days\"; did you mean \"renag_after_days\"?")
        }
        do {
            try policy.validate(params: ["renag_after_days": .string("soon")])
        } catch {
            #expect(error.description == "params.renag_after_days: expected a number like the policy's default 3, got \"soon\"")
        }
    }
}

@Suite struct LuaPolicyContextTests {
    @Test func theContextCarriesEverythingTheSpecPromises() throws {
        let policy = try Fixture.policy(
            """
            local parts = {
              ctx.event.name, ctx.event.feature, ctx.status, ctx.previous_status, ctx.settings.alert,
              ctx.settings.time_sensitive, ctx.platform.os, ctx.platform.version, ctx.platform.major, ctx.platform.minor,
              tostring(ctx.capabilities.notification_settings_link), tostring(ctx.capabilities.ephemeral),
              ctx.history.launches, ctx.history.soft_prompt.declined, tostring(ctx.history.denied_at),
              ctx.history.features.diary.opened, ctx.state.variant, ctx.params.renag_after_days, ctx.params.extra,
              ctx.now, ctx.locale, ctx.user.bucket,
            }
            return { action = "none", reason = table.concat(parts, " ") }
            """, params: "{ renag_after_days = 3, extra = 'a' }")
        var history = Ledger()
        history.launches = 4
        history.softPrompt.declined = 1
        history.features["diary"] = Ledger.FeatureHistory()
        history.features["diary"]?.opened = 2
        history.state = ["variant": .string("b")]
        let decision = try policy.decide(Fixture.context(params: ["extra": .string("z")], history: history))
        #expect(
            decision?.reason == "feature_opened diary not_determined unknown not_supported not_supported ios 16.4 16 4 "
                + "true false 4 1 nil 2 b 3 z 1767600000 zh-Hans 42")
    }

    @Test func eventFieldsForEveryEvent() throws {
        let policy = try Fixture.policy(
            """
            return { action = "none", reason = ctx.event.name .. ":" .. tostring(ctx.event.answer) .. ":" .. tostring(ctx.event.granted) }
            """)
        #expect(try policy.decide(Fixture.context(.softPromptAnswered(.decline)))?.reason == "soft_prompt_answered:decline:nil")
        #expect(try policy.decide(Fixture.context(.systemPromptAnswered(granted: false)))?.reason == "system_prompt_answered:nil:false")
        #expect(try policy.decide(Fixture.context(.settingsPromptAnswered(.open)))?.reason == "settings_prompt_answered:open:nil")
    }

    @Test func helpers() throws {
        let policy = try Fixture.policy(
            """
            local h = ctx.history
            return { action = "none", reason = table.concat({
              permit.minutes(2), permit.hours(1), permit.days(3),
              tostring(permit.since(ctx, nil) == math.huge), permit.since(ctx, ctx.now - 60),
              tostring(permit.at_least(ctx, "16.4")), tostring(permit.at_least(ctx, "16.10")),
              tostring(permit.at_least(ctx, "9.3")), tostring(permit.at_least(ctx, "16")),
            }, " ") }
            """)
        #expect(try policy.decide(Fixture.context())?.reason == "120 3600 259200 true 60 true false true true")
    }

    @Test func theContextIsFreshEachCall() throws {
        let policy = try Fixture.policy(
            """
            local seen = rawget(ctx, "status_seen")
            ctx.status_seen = true
            ctx.history.launches = 99
            return { action = "none", reason = tostring(seen) .. " " .. ctx.history.launches }
            """)
        #expect(try policy.decide(Fixture.context())?.reason == "nil 99")
        #expect(try policy.decide(Fixture.context())?.reason == "nil 99")
    }

    @Test func paramsAndPlatformCannotBeChangedByTheScript() throws {
        let policy = try Fixture.policy(
            """
            local ok = pcall(function() ctx.params.limit = 100 end)
            local ok2 = pcall(function() ctx.platform.major = 1 end)
            return { action = "none", reason = tostring(ok) .. " " .. tostring(ok2) .. " " .. ctx.params.limit .. " " .. ctx.platform.major }
            """, params: "{ limit = 3 }")
        #expect(try policy.decide(Fixture.context())?.reason == "false false 3 16")
        #expect(try policy.decide(Fixture.context())?.reason == "false false 3 16")
    }
}

@Suite struct LuaDecisionValidationTests {
    @Test func readsEveryAction() throws {
        let soft = try Fixture.policy(
            """
            return { action = "soft_prompt", title = { en = "Hi", ["zh-Hans"] = "嗨" }, message = "m",
                     accept = "a", decline = "d", presentation = "sheet", variant = "b", reason = "why",
                     remember = { asked = true, n = 2, f = 1.5, s = "x" } }
            """
        ).decide(Fixture.context())
        #expect(
            soft
                == Decision(
                    .softPrompt(
                        SoftPrompt(
                            title: .translations(["en": "Hi", "zh-Hans": "嗨"]), message: "m", accept: "a",
                            decline: "d", presentation: .sheet, variant: "b")),
                    reason: "why", remember: ["asked": .bool(true), "n": .integer(2), "f": .number(1.5), "s": .string("x")]))
        let request = try Fixture.policy("return { action = 'request_permission', options = { 'alert', 'provisional', 'alert' } }")
            .decide(Fixture.context())
        #expect(request?.action == .requestPermission(options: [.alert, .provisional]))
        let defaults = try Fixture.policy("return { action = 'request_permission' }").decide(Fixture.context())
        #expect(defaults?.action == .requestPermission(options: [.alert, .sound, .badge]))
        let settings = try Fixture.policy(
            """
            return { action = "settings_prompt", title = "t", message = "m", open = "o", cancel = "c",
                     deep_link = "notification_settings" }
            """
        ).decide(Fixture.context())
        #expect(
            settings?.action
                == .settingsPrompt(SettingsPrompt(title: "t", message: "m", open: "o", cancel: "c", deepLink: .notificationSettings)))
        #expect(try Fixture.policy("return nil").decide(Fixture.context()) == nil)
        #expect(try Fixture.policy("return { action = 'none' }").decide(Fixture.context()) == Decision.none)
    }

    @Test(arguments: [
        ("return 5", "decision: expected a decision table or nil, got 5"),
        ("return {}", "decision.action: missing; expected one of: none, soft_prompt, request_permission, settings_prompt"),
        ("return { action = 'soft_promt' }", "decision.action: \"soft_promt\" is not an action; did you mean \"soft_prompt\"?"),
        ("return { action = 7 }", "decision.action: 7 is not an action; expected one of"),
        (
            "return { action = 'soft_prompt', titel = 'x' }",
            "decision.titel: not a field of a soft_prompt decision; did you mean \"title\"?"
        ),
        (
            "return { action = 'none', title = 'x' }",
            "decision.title: not a field of a none decision; expected one of: action, reason, remember"
        ),
        ("return { action = 'request_permission', title = 'x' }", "decision.title: not a field of a request_permission decision"),
        (
            "return { action = 'soft_prompt', title = 'x', message = 'm', accept = 'a' }",
            "decision.decline: missing; give a string or a table of translations"
        ),
        (
            "return { action = 'soft_prompt', title = 3, message = 'm', accept = 'a', decline = 'd' }",
            "decision.title: expected a string or a table of translations, got 3"
        ),
        (
            "return { action = 'soft_prompt', title = { en = 1 }, message = 'm', accept = 'a', decline = 'd' }",
            "decision.title[\"en\"]: expected a string, got 1"
        ),
        (
            "return { action = 'soft_prompt', title = string.rep('x', 3000), message = 'm', accept = 'a', decline = 'd' }",
            "decision.title: text of 3000 bytes is longer than the 2000 allowed"
        ),
        (
            "return { action = 'soft_prompt', title = 't', message = 'm', accept = 'a', decline = 'd', presentation = 'modal' }",
            "decision.presentation: expected alert, banner, sheet, inline, got \"modal\""
        ),
        (
            "return { action = 'settings_prompt', title = 't', message = 'm', open = 'o', cancel = 'c', deep_link = 'App-Prefs:root=NOTIFICATIONS_ID' }",
            "decision.deep_link: expected app_settings or notification_settings, got \"App-Prefs:root=NOTIFICATIONS_ID\" (App-Prefs: and prefs:root= URLs are private API and get an app rejected from the App Store)"
        ),
        (
            "return { action = 'request_permission', options = { 'alert', 'xyzzy' } }",
            "decision.options[2]: \"xyzzy\" is not an option; expected one of"
        ),
        (
            "return { action = 'request_permission', options = { 'alert', 'sond' } }",
            "decision.options[2]: \"sond\" is not an option; did you mean \"sound\"?"
        ),
        ("return { action = 'request_permission', options = 'alert' }", "decision.options: expected a list"),
        ("return { action = 'request_permission', options = { first = 'alert' } }", "decision.options: expected a list like"),
        ("return setmetatable({ action = 'none' }, {})", "decision: tables with metatables are not accepted here"),
        (
            "return setmetatable({}, { __index = function() error('ran policy code') end })",
            "decision: tables with metatables are not accepted here"
        ),
        ("return { action = 'none', remember = { t = {} } }", "decision.remember.t: expected a string, number or boolean, got a table"),
        ("return { action = 'none', reason = 5 }", "decision.reason: expected a string, got 5"),
        ("return { action = 'none', [1] = 'x' }", "decision: unexpected number key 1; use field names"),
    ])
    func malformedDecisionsNameTheField(body: String, expected: String) {
        let message = Fixture.decideError(body)
        #expect(message.contains(expected), "\(message)")
    }

    /// A table the policy also uses as a metatable has no metatable of its own (getmetatable
    /// says nil), so it is a plain decision.
    @Test func aDecisionUsedAsAMetatableIsPlain() throws {
        let policy = try Fixture.policy("local d = { action = 'none', reason = 'shared' } setmetatable({}, d) return d")
        #expect(try policy.decide(Fixture.context())?.reason == "shared")
    }

    @Test func cyclicDecisionsAreErrorsNotHangs() {
        let message = Fixture.decideError("local t = { action = 'none' }; t.remember = t; return t")
        #expect(message != "no error")
    }

    @Test func runtimeErrorsNameFileAndLine() {
        let message = Fixture.decideError("local x = nil\n    return x.field")
        #expect(message.hasPrefix("fixture.lua:6: attempt to index a nil value"), "\(message)")
        do {
            _ = try Fixture.policy("local x = nil\n    return x.field").decide(Fixture.context())
        } catch {
            #expect(error.kind == .runtime && error.file == "fixture.lua" && error.line == 6)
            #expect(error.traceback?.contains("fixture.lua") == true)
        }
    }

    @Test func remindersAreValidated() throws {
        let good = try Fixture.policy(
            "return nil",
            extra: """
                plan_reminders = function(ctx)
                  return { { day = 1, hour = 9, body = { en = "Hi" }, title = "T", badge = 1, sound = false, id = "r1", action = "MOOD" },
                           { hour = 20, minute = 30, body = "Evening" } }
                end,
                """
        ).planReminders(Fixture.context())
        #expect(
            good == [
                ReminderRequest(
                    day: 1, hour: 9, title: "T", body: .translations(["en": "Hi"]), action: "MOOD", sound: false, badge: 1, id: "r1"),
                ReminderRequest(day: 0, hour: 20, minute: 30, body: "Evening"),
            ])
        for (body, expected) in [
            ("return { { hour = 25, body = 'x' } }", "reminders[1].hour: expected a whole number from 0 to 23, got 25"),
            ("return { { hour = 9 } }", "reminders[1].body: missing"),
            ("return { { hour = 9, body = 'x', when = 1 } }", "reminders[1].when: not a field of a reminder"),
            ("return { hour = 9 }", "reminders: expected a list"),
            ("return 'soon'", "reminders: expected a list of reminders or nil, got \"soon\""),
        ] {
            do {
                _ = try Fixture.policy("return nil", extra: "plan_reminders = function(ctx) \(body) end,").planReminders(Fixture.context())
                Issue.record("no error for \(body)")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
            }
        }
    }
}

@Suite struct LuaPolicyEngineTests {
    /// The engine from the foundation runs a Lua policy end to end.
    @Test func engineRunsALuaPolicyEndToEnd() async throws {
        let policy = try LuaPolicy(
            source: """
                return {
                  name = "e2e",
                  decide = function(ctx)
                    if ctx.event.name == "feature_opened" and ctx.status == "not_determined" then
                      return { action = "soft_prompt", title = { en = "Hi", ["zh-Hans"] = "你好" }, message = "m",
                               accept = "a", decline = "d", remember = { asked_at = ctx.now } }
                    elseif ctx.event.name == "soft_prompt_answered" and ctx.event.answer == "accept" then
                      return { action = "request_permission", options = { "alert", "sound" } }
                    end
                  end,
                  plan_reminders = function(ctx)
                    return { { day = 1, hour = 9, body = "Good morning" } }
                  end,
                }
                """, chunkName: "e2e.lua")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let platform = Platform(version: try OSVersion(parsing: "16.4"))
        let device = try SimulatedDevice(platform: platform, clock: clock)
        let engine = PermissionEngine(
            policy: policy, client: device, platform: platform, clock: clock,
            configuration: EngineConfiguration(locale: "zh-Hans-CN", timeZone: TimeZone(identifier: "UTC")!, foregroundRechecks: []))
        let shown = await engine.handle(.featureOpened("diary"))
        guard case .softPrompt(let prompt) = shown.decision.action else { Issue.record("\(shown)"); return }
        #expect(prompt.title == "你好")
        #expect(await engine.history.state == ["asked_at": .integer(1_767_600_000)])
        let request = await engine.handle(.softPromptAnswered(.accept))
        #expect(request.dialogShown)
        let granted = try device.answerDialog(allow: true)
        let answered = await engine.handle(.systemPromptAnswered(granted: granted))
        #expect(answered.statusAfter == .authorized)
        #expect(answered.remindersScheduled.map(\.body) == ["Good morning"])
    }

    @Test func printGoesToTheOutcomeTraceNotStdout() async throws {
        let policy = try LuaPolicy(
            source: """
                return { name = "chatty", decide = function(ctx)
                  print("event", ctx.event.name, 42)
                  permit.log("status", ctx.status)
                end }
                """, chunkName: "chatty.lua")
        let engine = try Fixture.engine(policy)
        let outcome = await engine.handle(.appLaunch)
        #expect(outcome.trace.contains("event\tapp_launch\t42"))
        #expect(outcome.trace.contains("status\tnot_determined"))
        #expect(await engine.handle(.appForeground).trace.contains("app_foreground"))
        #expect(!(await engine.handle(.appForeground).trace.contains("app_launch")))
    }

    /// `Policy.answer` drains the trace under the same lock as the call: what a policy printed
    /// before it failed still reaches the outcome, next to the error, and only that event's.
    @Test func theTraceOfAFailedCallIsKept() async throws {
        let policy = try LuaPolicy(
            source: """
                return { name = "noisy", decide = function(ctx)
                  print("before", ctx.event.name)
                  if ctx.event.name == "app_launch" then error("boom") end
                end }
                """, chunkName: "noisy.lua")
        let engine = try Fixture.engine(policy)
        let failed = await engine.handle(.appLaunch)
        #expect(failed.errors.count == 1)
        #expect(failed.trace.contains("before\tapp_launch"))
        let next = await engine.handle(.appForeground)
        #expect(next.errors.isEmpty)
        #expect(next.trace.contains("before\tapp_foreground") && !next.trace.contains("app_launch"))
    }

    @Test func aFailingLuaPolicyNeverBreaksTheEngine() async throws {
        let policy = try LuaPolicy(
            source: """
                return { name = "flaky", decide = function(ctx)
                  if ctx.event.name == "app_launch" then while true do end end
                  if ctx.event.name == "app_foreground" then error("boom") end
                  if ctx.event.name == "app_background" then return { action = "settings_prompt", title = "t", message = "m",
                    open = "o", cancel = "c", deep_link = "prefs:root=NOTIFICATIONS_ID" } end
                  return { action = "none", reason = "fine" }
                end }
                """, chunkName: "flaky.lua", limits: LuaLimits(instructionsPerCall: 200_000, timeLimitMilliseconds: 60_000))
        let engine = try Fixture.engine(policy)
        let loop = await engine.handle(.appLaunch)
        #expect(loop.error?.kind == .instructionBudget)
        #expect(loop.error?.description.hasPrefix("flaky.lua:2:") == true)
        let boom = await engine.handle(.appForeground)
        #expect(boom.error?.description == "flaky.lua:3: boom")
        let link = await engine.handle(.appBackground)
        #expect(link.error?.field == "decision.deep_link")
        let fine = await engine.handle(.featureOpened("x"))
        #expect(fine.errors.isEmpty && fine.decision.reason == "fine")
    }
}

@Suite struct LuaCoverageTests {
    static let source = """
        local function helper(ctx)
          if ctx.status == "denied" then
            return { action = "none", reason = "denied" }
          end
          return nil
        end

        return {
          name = "cov",
          decide = function(ctx)
            if ctx.event.name == "app_launch" then
              return helper(ctx)
            end
            return { action = "none", reason = "other" }
          end,
        }
        """

    @Test func linesThatRanAndLinesThatDidNot() throws {
        let policy = try LuaPolicy(source: Self.source, chunkName: "cov.lua", coverage: true)
        let before = try #require(policy.lineCoverage)
        #expect(before.executable.isSuperset(of: [2, 3, 5, 11, 12, 14]))
        #expect(!before.executable.contains(7))  // blank
        _ = try policy.decide(Fixture.context(.appLaunch, status: .notDetermined))
        var coverage = try #require(policy.lineCoverage)
        #expect(coverage.covered.isSuperset(of: [2, 5, 11, 12]))
        #expect(coverage.missed.contains(3) && coverage.missed.contains(14))
        _ = try policy.decide(Fixture.context(.appLaunch, status: .denied))
        _ = try policy.decide(Fixture.context(.appForeground))
        coverage = try #require(policy.lineCoverage)
        #expect(coverage.missed.isEmpty, "\(coverage.missed)")
        #expect(coverage.percent == 100)
    }

    @Test func coverageIsOffByDefault() throws {
        #expect(try LuaPolicy(source: Self.source, chunkName: "cov.lua").lineCoverage == nil)
    }
}

@Suite struct LuaForgetTests {
    @Test func forgetDeletesARememberedKey() async throws {
        let policy = try LuaPolicy(
            source: """
                return { name = "forget", decide = function(ctx)
                  if ctx.event.name == "app_launch" then return { action = "none", remember = { a = 1, b = "x" } } end
                  return { action = "none", remember = { a = permit.forget } }
                end }
                """, chunkName: "forget.lua")
        let engine = try Fixture.engine(policy)
        _ = await engine.handle(.appLaunch)
        #expect(await engine.history.state == ["a": .integer(1), "b": .string("x")])
        _ = await engine.handle(.appForeground)
        #expect(await engine.history.state == ["b": .string("x")])
    }
}

@Suite struct LuaPolicyCheckTests {
    @Test func everyProblemOfAFileAtOnce() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-check-\(UUID().uuidString).lua")
        try Data("return { decide = 3, plan = 1, params = { ok = 1, bad = function() end } }".utf8).write(to: url)
        let problems = LuaPolicy.problems(contentsOf: url, displayName: "multi.lua").map(\.description)
        #expect(
            problems == [
                "multi.lua: policy.plan: not a field of a policy; did you mean \"plan_reminders\"?",
                "multi.lua: policy.name: missing; give the policy a name, e.g. name = \"polite\"",
                "multi.lua: policy.decide: missing; a policy needs decide = function(ctx) ... end",
                "multi.lua: policy.params.bad: expected a string, number, boolean or table, got a function",
            ])
        try Data("return {".utf8).write(to: url)
        #expect(
            LuaPolicy.problems(contentsOf: url, displayName: "multi.lua").map(\.description)
                == ["multi.lua:1: unexpected symbol near <eof>"])
        try Data("return { name = 'fine', decide = function() end }".utf8).write(to: url)
        #expect(LuaPolicy.problems(contentsOf: url).isEmpty)
    }

    /// `permit check` gets the loaded policy from the same compile that looked for problems.
    @Test func checkReturnsThePolicyOrEveryProblem() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-check-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("return { name = 'fine', params = { days = 3 }, decide = function() end }".utf8).write(to: url)
        let valid = LuaPolicy.check(contentsOf: url, displayName: "fine.lua")
        #expect(valid.problems.isEmpty)
        #expect(valid.policy?.name == "fine" && valid.policy?.defaultParams == ["days": .integer(3)])
        try Data("return { decide = 3 }".utf8).write(to: url)
        let broken = LuaPolicy.check(contentsOf: url, displayName: "broken.lua")
        #expect(broken.policy == nil && broken.problems.count == 2)
    }
}
