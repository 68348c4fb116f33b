import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `inform`, `dismiss` and `id` as a Lua policy writes them, read alike on the warm path (the
/// in-place reader) and the general one (`DecisionReader`, which words every refusal), and
/// `ctx.event.prompt_id` and `ctx.history.inform` as a policy reads them.
@Suite struct PagesAndPromptIDsLuaTests {
    static func context(_ event: AppEvent = .featureOpened("feed"), promptID: String? = nil, ledger: Ledger = Ledger()) -> PolicyContext {
        let version = try! OSVersion(parsing: "17.0")
        var context = PolicyContext(
            event: event, status: .denied, previousStatus: .denied, settings: .typical(for: .denied, on: version),
            platform: Platform(version: version), history: ledger, now: 1_767_600_000)
        context.promptID = promptID
        return context
    }

    static func policy(_ body: String) throws(PolicyError) -> LuaPolicy {
        try LuaPolicy(source: "return { name = \"pages\", decide = function(ctx)\n\(body)\nend }", chunkName: "pages.lua")
    }

    /// Each decision, returned by a policy (the warm path) and read from the same table by
    /// `DecisionReader`, gives the same action.
    @Test(arguments: [
        (
            #"{ action = "inform", title = "T", message = "M", button = "OK", id = "safety" }"#,
            Decision.Action.inform(InformPage(title: "T", message: "M", button: "OK", id: "safety"))
        ),
        (
            #"{ action = "inform", presentation = "inline", title = "Notifications are off" }"#,
            .inform(InformPage(title: "Notifications are off", message: nil, button: nil, presentation: .inline))
        ),
        (
            #"{ action = "inform", presentation = "inline", title = "T", button = { en = "Fix", de = "Beheben" } }"#,
            .inform(InformPage(title: "T", message: nil, button: .translations(["en": "Fix", "de": "Beheben"]), presentation: .inline))
        ),
        (
            #"{ action = "inform", title = "T", message = "M", button = "Continue", open = "Open Settings" }"#,
            .inform(InformPage(title: "T", message: "M", button: "Continue", open: "Open Settings"))
        ),
        (
            #"{ action = "inform", title = "T", message = "M", button = "OK", open = { en = "Settings" }, deep_link = "notification_settings" }"#,
            .inform(
                InformPage(title: "T", message: "M", button: "OK", open: .translations(["en": "Settings"]), deepLink: .notificationSettings)
            )
        ),
        (
            #"{ action = "inform", presentation = "inline", title = "T", button = "Fix", open = "Settings" }"#,
            .inform(InformPage(title: "T", message: nil, button: "Fix", open: "Settings", presentation: .inline))
        ),
        (#"{ action = "dismiss" }"#, .dismiss),
        (
            #"{ action = "soft_prompt", title = "T", message = "M", accept = "A", decline = "D", id = "welcome" }"#,
            .softPrompt(SoftPrompt(title: "T", message: "M", accept: "A", decline: "D", id: "welcome"))
        ),
        (
            #"{ action = "settings_prompt", title = "T", message = "M", open = "O", cancel = "C", id = "off" }"#,
            .settingsPrompt(SettingsPrompt(title: "T", message: "M", open: "O", cancel: "C", id: "off"))
        ),
    ])
    func bothPathsReadPagesDismissAndIDs(source: String, expected: Decision.Action) throws {
        let policy = try Self.policy("return \(source)")
        #expect(try policy.decide(Self.context())?.action == expected)
        let general = try Self.policy("local d = \(source)\nd.reason = nil\nreturn setmetatable(d, nil), 'extra'")
        #expect(try general.decide(Self.context())?.action == expected)
    }

    /// A bad `id` or a page without its texts is an error naming the field, on both paths.
    @Test(arguments: [
        (#"{ action = "inform", title = "T", message = "M", button = "OK", id = 5 }"#, "decision.id", "1 to 64 bytes"),
        (#"{ action = "soft_prompt", title = "T", message = "M", accept = "A", decline = "D", id = "" }"#, "decision.id", #"got """#),
        (
            #"{ action = "settings_prompt", title = "T", message = "M", open = "O", cancel = "C", id = string.rep("x", 65) }"#,
            "decision.id", "got 65 bytes"
        ),
        (#"{ action = "inform", title = "T", message = "M" }"#, "decision.button", "without a button it is a label"),
        (#"{ action = "inform", title = "T", button = "OK" }"#, "decision.message", "its one button"),
        (#"{ action = "inform", presentation = "inline", message = "M" }"#, "decision.title", "missing"),
        (
            #"{ action = "inform", presentation = "inline", title = "T", open = "Settings" }"#, "decision.open",
            "a label row has nothing to tap"
        ),
        (
            #"{ action = "inform", title = "T", message = "M", button = "OK", deep_link = "app_settings" }"#, "decision.deep_link",
            "only an open button"
        ),
        (
            #"{ action = "inform", title = "T", message = "M", button = "OK", open = "O", deep_link = "App-Prefs:root" }"#,
            "decision.deep_link", "private API"
        ),
        (#"{ action = "inform", title = "T", message = "M", button = "OK", open = 3 }"#, "decision.open", "expected a string"),
        (#"{ action = "dismiss", title = "T" }"#, "decision.title", "not a field of a dismiss decision"),
        (#"{ action = "request_permission", id = "x" }"#, "decision.id", "not a field of a request_permission decision"),
    ])
    func badFieldsAreNamed(source: String, field: String, message: String) throws {
        for body in ["return \(source)", "return \(source), 'a second value takes the general path'"] {
            let policy = try Self.policy(body)
            do {
                _ = try policy.decide(Self.context())
                Issue.record("\(source) was accepted")
            } catch {
                #expect(error.field == field, "\(error)")
                #expect(error.message.contains(message), "\(error)")
            }
        }
    }

    /// `ctx.event.prompt_id` is the context's, absent when it has none; `ctx.history.inform`
    /// reads the ledger's counts, and a typo in it is an error as elsewhere in ctx.
    @Test func aPolicyReadsThePromptIDAndTheInformHistory() throws {
        let policy = try Self.policy(
            """
            local h = ctx.history.inform
            local typo = pcall(function() return h.shwon end)
            return { action = "none", reason = tostring(ctx.event.prompt_id) .. " " .. tostring(ctx.event.answer) .. " "
              .. h.shown .. " " .. h.ok .. " " .. h.dismissed .. " " .. h.opened .. " " .. tostring(h.last_shown_at) .. " "
              .. tostring(typo) }
            """)
        var ledger = Ledger()
        ledger.inform.shown = 3
        ledger.inform.ok = 2
        ledger.inform.opened = 4
        ledger.inform.lastShownAt = 7
        #expect(
            try policy.decide(Self.context(.informAnswered(.ok), promptID: "safety", ledger: ledger))?.reason
                == "safety ok 3 2 0 4 7 false")
        #expect(try policy.decide(Self.context(.informAnswered(.open), promptID: "safety"))?.reason == "safety open 0 0 0 0 nil false")
        #expect(try policy.decide(Self.context(.featureOpened("feed")))?.reason == "nil nil 0 0 0 0 nil false")
    }
}
