import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `permit.copy`, `permit.version_at_least`, `ctx.app` and the policy-level fields a real app's
/// policy declares once (`remote_registration`, `review_exceptions`), on both decision paths.
@Suite struct CopyAndVersionTests {
    static let copy = try! PolicyCopy(locales: [
        "en": ["welcome.title": "Stay in the loop", "welcome.accept": "Continue"],
        "de": ["welcome.title": "Bleib auf dem Laufenden"],
    ])

    static func context(
        _ event: AppEvent = .featureOpened("diary"), locale: String = "de", app: AppInfo = AppInfo()
    ) -> PolicyContext {
        let version = try! OSVersion(parsing: "17.0")
        return PolicyContext(
            event: event, status: .notDetermined, previousStatus: .notDetermined,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            now: 1_767_600_000, locale: locale, app: app)
    }

    static func policy(_ body: String, copy: PolicyCopy = copy, extra: String = "") throws(PolicyError) -> LuaPolicy {
        try LuaPolicy(
            source: "return { name = \"copy\", \(extra) decide = function(ctx)\n\(body)\nend }", chunkName: "copy.lua", copy: copy)
    }

    /// A copy key is a translations table wherever a text goes; the engine picks the locale.
    @Test func aCopyKeyIsATextOfTranslations() throws {
        let policy = try Self.policy(
            """
            return { action = "soft_prompt", title = permit.copy("welcome.title"), message = permit.copy("welcome.title"),
                     accept = permit.copy("welcome.accept"), decline = "No", reason = "copy" }
            """)
        let decision = try #require(try policy.decide(Self.context()))
        guard case .softPrompt(let prompt) = decision.action else { Issue.record("not a soft prompt"); return }
        #expect(prompt.title == .translations(["en": "Stay in the loop", "de": "Bleib auf dem Laufenden"]))
        #expect(prompt.accept.resolved(for: "de") == "Continue")
    }

    /// Each call hands out a new table: what a script changes in one is gone at the next call,
    /// and the copy itself is out of reach.
    @Test func theCopyCannotBeChangedByTheScript() throws {
        let policy = try Self.policy(
            """
            local first = permit.copy("welcome.title")
            first.en = "changed"
            first.fr = "ajouté"
            local second = permit.copy("welcome.title")
            return { action = "none", reason = second.en .. "|" .. tostring(second.fr) .. "|" .. tostring(first == second) }
            """)
        #expect(try policy.decide(Self.context())?.reason == "Stay in the loop|nil|false")
    }

    @Test func anUnknownKeyOrAPackWithoutCopyIsAnErrorNamingIt() throws {
        let unknown = try Self.policy(#"return { action = "none", reason = permit.copy("welcome.titel").en }"#)
        #expect(throws: PolicyError.self) { try unknown.decide(Self.context()) }
        do {
            _ = try unknown.decide(Self.context())
        } catch {
            #expect(error.message.contains(#"permit.copy: no text "welcome.titel" in the pack's copy"#), "\(error)")
            #expect(error.line == 2)
        }
        let none = try Self.policy(#"return { action = "none", reason = permit.copy("x").en }"#, copy: .empty)
        do {
            _ = try none.decide(Self.context())
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("the pack has no copy"), "\(error)")
        }
        let long = try Self.policy("return { action = \"none\", reason = permit.copy(string.rep(\"k\", 200)).en }")
        do {
            _ = try long.decide(Self.context())
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("a key is at most 128 bytes"), "\(error)")
        }
    }

    @Test func versionsCompareANumberAtATime() throws {
        let policy = try Self.policy(
            """
            local v = permit.version_at_least
            return { action = "none", reason = table.concat({
              tostring(v("2.10", "2.9")), tostring(v("2.9", "2.10")), tostring(v("3", "3.0.0")),
              tostring(v(nil, "1")), tostring(v("10.0.1", "10")), tostring(v("1.9.9", "2")) }, " ") }
            """)
        #expect(try policy.decide(Self.context())?.reason == "true false true false true false")
        let bad = try Self.policy(#"return { action = "none", reason = tostring(permit.version_at_least("2.x", "1")) }"#)
        #expect(throws: PolicyError.self) { try bad.decide(Self.context()) }
    }

    /// `ctx.app` is read-only and strict, and follows the context from call to call.
    @Test func ctxAppFollowsTheContext() throws {
        let policy = try Self.policy(
            """
            local ok = pcall(function() ctx.app.version = "9" end)
            local typo = pcall(function() return ctx.app.versoin end)
            return { action = "none", reason = tostring(ctx.app.version) .. " " .. tostring(ctx.app.previous_version)
              .. " " .. tostring(ok) .. " " .. tostring(typo) }
            """)
        #expect(try policy.decide(Self.context())?.reason == "nil nil false false")
        let updated = AppInfo(version: "3.0.0", previousVersion: "2.9.1")
        #expect(try policy.decide(Self.context(app: updated))?.reason == "3.0.0 2.9.1 false false")
        #expect(try policy.decide(Self.context(app: AppInfo(version: "3.0.0")))?.reason == "3.0.0 nil false false")
    }

    /// `cap_exempt` and `for_setting` read alike on the warm path (a policy's decision) and the
    /// general one (`DecisionReader`, which also words every refusal).
    @Test func capExemptAndForSettingAreReadOnBothPaths() throws {
        let general = try #require(
            try DecisionReader.decision(
                from: .table(
                    LuaTable([
                        "action": "settings_prompt", "title": "T", "message": "M", "open": "O", "cancel": "C",
                        "for_setting": "critical_alert", "cap_exempt": "urgent",
                    ]))))
        #expect(general.capExempt == "urgent")
        if case .settingsPrompt(let prompt) = general.action { #expect(prompt.forSetting == .criticalAlert) }
        for title in [#""Hi""#, #"{ en = "Hi" }"#, "permit.copy(\"welcome.title\")"] {
            let policy = try Self.policy(
                """
                return { action = "settings_prompt", title = \(title), message = "M", open = "O", cancel = "C",
                         for_setting = "time_sensitive", cap_exempt = "urgent", reason = "r" }
                """)
            let decision = try #require(try policy.decide(Self.context()))
            #expect(decision.capExempt == "urgent")
            guard case .settingsPrompt(let prompt) = decision.action else { Issue.record("not a settings prompt"); continue }
            #expect(prompt.forSetting == .timeSensitive)
        }
        for (field, value, message) in [
            ("for_setting", #""time_sensitve""#, #"did you mean "time_sensitive"?"#),
            ("cap_exempt", #""""#, "say why this prompt may pass the daily cap"),
            ("cap_exempt", "true", "expected a string"),
        ] {
            let policy = try Self.policy(
                """
                return { action = "settings_prompt", title = "T", message = "M", open = "O", cancel = "C", \(field) = \(value) }
                """)
            do {
                _ = try policy.decide(Self.context())
                Issue.record("\(field) = \(value) was accepted")
            } catch {
                #expect(error.field == "decision.\(field)")
                #expect(error.message.contains(message), "\(error)")
            }
        }
    }

    @Test func policyLevelFieldsAreReadAndChecked() throws {
        let policy = try Self.policy(
            "return nil",
            extra: #"remote_registration = "keep", review_exceptions = { ["asks-at-launch"] = "alerts are the point" },"#)
        #expect(policy.declaration.remoteRegistration == .keep)
        #expect(policy.reviewExceptions == ["asks-at-launch": "alerts are the point"])
        for (extra, field) in [
            (#"remote_registration = "never","#, "policy.remote_registration"),
            (#"review_exceptions = { ["asks-at-launch"] = "" },"#, #"policy.review_exceptions["asks-at-launch"]"#),
            (#"review_exceptions = "all","#, "policy.review_exceptions"),
        ] {
            do {
                _ = try Self.policy("return nil", extra: extra)
                Issue.record("\(extra) was accepted")
            } catch {
                #expect(error.field == field, "\(error)")
            }
        }
    }
}
