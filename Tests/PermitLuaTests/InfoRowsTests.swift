import PermitCore
import Testing

@testable import PermitLua

/// `rows` on a settings prompt or an information page: a status list of names and values
/// (Loop's Alert Permissions: Notifications · On, Time Sensitive · Off) that the app lays out
/// as its own screens do.
@Suite struct InfoRowsTests {
    static func decide(_ decision: String) throws(PolicyError) -> Decision? {
        let policy = try LuaPolicy(
            source: "return { name = 'rows', decide = function(ctx) return \(decision) end }", chunkName: "rows.lua")
        return try policy.decide(
            PolicyContext(
                event: .featureOpened("permissions"), status: .authorized, previousStatus: .authorized,
                settings: .typical(for: .authorized, on: try! OSVersion(parsing: "17.2")),
                platform: Platform(version: try! OSVersion(parsing: "17.2")),
                history: Ledger(), params: [:], now: 1_767_600_000, locale: "en", userBucket: 1))
    }

    @Test func aSettingsPromptAndAPageCarryTheirRowsInOrder() throws {
        let prompt = try #require(
            try Self.decide(
                """
                { action = "settings_prompt", presentation = "inline", title = "Alert Permissions", message = "Keep these on.",
                  rows = { { name = "Notifications", value = { en = "On", de = "An" } }, { name = "Time Sensitive", value = "Off" } } }
                """))
        guard case .settingsPrompt(let settings) = prompt.action else { Issue.record("\(prompt.action)"); return }
        #expect(
            settings.rows == [
                InfoRow(name: .plain("Notifications"), value: .translations(["en": "On", "de": "An"])),
                InfoRow(name: .plain("Time Sensitive"), value: .plain("Off")),
            ])
        #expect(
            prompt.fields["rows"]
                == .list([
                    .table([
                        "name": .string("Notifications"),
                        "value": .string(LocalizedText.translations(["en": "On", "de": "An"]).description),
                    ]),
                    .table(["name": .string("Time Sensitive"), "value": .string("Off")]),
                ]))
        let page = try #require(
            try Self.decide(#"{ action = "inform", title = "T", message = "M", button = "OK", rows = { { name = "A", value = "1" } } }"#))
        guard case .inform(let inform) = page.action else { Issue.record("\(page.action)"); return }
        #expect(inform.rows == [InfoRow(name: .plain("A"), value: .plain("1"))])
        // Without rows, none; a soft prompt takes none (an unknown field there).
        let plain = try #require(try Self.decide(#"{ action = "inform", title = "T", message = "M", button = "OK" }"#))
        if case .inform(let bare) = plain.action { #expect(bare.rows.isEmpty) }
        #expect(plain.fields["rows"] == nil)
    }

    /// Each refusal names the field, down to the row and its part, and says what to write.
    @Test(arguments: [
        (#"rows = "Notifications: On""#, "decision.rows", "expected a list of rows"),
        ("rows = {}", "decision.rows", "an empty list"),
        (#"rows = { a = { name = "A", value = "B" } }"#, "decision.rows", "got a table with named keys"),
        (#"rows = { { name = "A" } }"#, "decision.rows[1].value", "missing; a row needs a name and a value"),
        (#"rows = { { name = "A", value = "B" }, { name = "C", value = 3 } }"#, "decision.rows[2].value", "expected a string or"),
        (#"rows = { { name = "A", value = "B", colour = "red" } }"#, "decision.rows[1].colour", "not a field of a row"),
        (#"rows = { "A: B" }"#, "decision.rows[1]", "expected a row like"),
        ("rows = { " + String(repeating: #"{ name = "A", value = "B" }, "#, count: 17) + "}", "decision.rows", "17 rows is more than 16"),
    ])
    func aWrongRowIsNamed(rows: String, field: String, words: String) throws {
        do {
            _ = try Self.decide(#"{ action = "settings_prompt", title = "T", message = "M", open = "O", cancel = "C", "# + rows + " }")
            Issue.record("\(rows) was accepted")
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.description.contains(words), "\(error)")
        }
    }

    /// `permit check`'s translation rules hold for a row's texts as for the title's.
    @Test func aRowsMissingTranslationIsFoundByCheck() throws {
        let decision = try #require(
            try Self.decide(
                """
                { action = "settings_prompt", title = { en = "T", de = "T" }, message = { en = "M", de = "M" }, open = { en = "O", de = "O" },
                  cancel = { en = "C", de = "C" }, rows = { { name = { en = "Alerts", de = "Mitteilungen" }, value = { en = "On" } } },
                  reason = "r" }
                """))
        let problems = TranslationCheck.problems(of: decision, locales: ["en", "de"])
        #expect(problems.contains { $0.contains("decision.rows[1].value has no \"de\" translation") }, "\(problems)")
        #expect(!problems.contains { $0.contains("rows[1].name has no") }, "\(problems)")
    }
}
