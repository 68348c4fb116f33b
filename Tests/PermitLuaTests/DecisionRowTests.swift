import PermitCore
import Testing

@testable import PermitLua

/// `row` on a decision: the inline row the app puts on its screen along with the decision's
/// action, beneath a modal (Loop's status-screen warning row under its warning alert, both from
/// one check), read as the row decision it would be alone.
@Suite struct DecisionRowTests {
    static func decide(_ decision: String) throws(PolicyError) -> Decision? {
        try InfoRowsTests.decide(decision)
    }

    static let alert = #"action = "inform", id = "warning", title = "Alerts are off", message = "M", button = "OK""#

    @Test func aModalCarriesItsRowAsAnInlineAction() throws {
        let decision = try #require(
            try Self.decide(
                "{ \(Self.alert), row = { action = \"settings_prompt\", id = \"status_row\", title = { en = \"Off\", de = \"Aus\" }, "
                    + "message = \"Fix in Settings\", deep_link = \"notification_settings\" } }"))
        guard case .inform(let page) = decision.action, case .settingsPrompt(let row)? = decision.row else {
            Issue.record("\(decision)")
            return
        }
        #expect(page.id == "warning")
        // A row is inline whether or not it says so; it needs no open or cancel text.
        #expect(row.presentation == .inline)
        #expect(row.id == "status_row")
        #expect(row.title == .translations(["en": "Off", "de": "Aus"]))
        #expect(row.deepLink == .notificationSettings)
        #expect(row.open == nil && row.cancel == nil)
        #expect(
            decision.fields["row"].map { value in
                if case .table(let table) = value {
                    return table["action"] == .string("settings_prompt") && table["id"] == .string("status_row")
                }
                return false
            } == true)
        // Every text of both, the row's named under row.
        #expect(decision.texts.map(\.field) == ["title", "message", "button", "row.title", "row.message"])
        // A dismiss may carry the row that takes the place of the one there.
        let dismiss = try #require(try Self.decide(#"{ action = "dismiss", row = { action = "inform", title = "All on" } }"#))
        #expect(dismiss.action == .dismiss)
        guard case .inform(let label)? = dismiss.row else { Issue.record("\(dismiss)"); return }
        #expect(label.isLabel && label.presentation == .inline)
        // Beside none, a row taken away while the modal stays.
        let away = try #require(try Self.decide(#"{ action = "none", row = { action = "dismiss" } }"#))
        #expect(away.action == .none && away.row == .dismiss)
        #expect(away.fields["row"] == .table(["action": .string("dismiss")]))
        #expect(away.texts.isEmpty)
    }

    /// Each refusal names the row's own field and says what to write.
    @Test(arguments: [
        (
            #"action = "inform", presentation = "inline", title = "T", row = { action = "inform", title = "U" }"#, "decision.row",
            "the decision is a row already"
        ),
        ("\(alert), row = \"Off\"", "decision.row", "expected a row like"),
        (
            "\(alert), row = { title = \"T\" }", "decision.row.action",
            "missing; a row is one of: soft_prompt, settings_prompt, inform, dismiss"
        ),
        ("\(alert), row = { action = \"request_permission\" }", "decision.row.action", "is not a row"),
        (
            "\(alert), row = { action = \"inform\", title = \"T\", presentation = \"alert\" }", "decision.row.presentation",
            "a row is inline"
        ),
        ("\(alert), row = { action = \"inform\", title = \"T\", reason = \"r\" }", "decision.row.reason", "not a field of an inform row"),
        ("\(alert), row = { action = \"dismiss\", title = \"T\" }", "decision.row.title", "not a field of a dismiss row"),
        ("\(alert), row = { action = \"settings_prompt\", message = \"M\" }", "decision.row.title", "missing"),
        ("\(alert), row = { action = \"inform\", title = 7 }", "decision.row.title", "expected a string or a table of translations"),
        (
            "\(alert), row = { action = \"inform\", title = \"T\", button = \"B\", link = \"More\", url = \"ftp://x\" }",
            "decision.row.url",
            "is not a web page a link may open"
        ),
    ])
    func aWrongRowIsNamed(decision: String, field: String, words: String) throws {
        do {
            _ = try Self.decide("{ \(decision) }")
            Issue.record("\(decision) was accepted")
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.description.contains(words), "\(error)")
        }
    }

    /// `permit check`'s translation rules hold for the row's texts as for the modal's.
    @Test func aRowsMissingTranslationIsFoundByCheck() throws {
        let decision = try #require(
            try Self.decide(
                """
                { action = "inform", title = { en = "T", de = "T" }, message = { en = "M", de = "M" }, button = { en = "OK", de = "OK" },
                  row = { action = "inform", title = { en = "Off" } }, reason = "r" }
                """))
        let problems = TranslationCheck.problems(of: decision, locales: ["en", "de"])
        #expect(problems.contains { $0.contains("decision.row.title has no \"de\" translation") }, "\(problems)")
        #expect(!problems.contains { $0.contains("decision.title has no") }, "\(problems)")
    }
}
