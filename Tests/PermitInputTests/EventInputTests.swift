import PermitCore
import PermitInput
import Testing

/// Scenario steps and `permit decide` read events through one reader.
@Suite struct EventInputTests {
    @Test func everyEventReadsWithTheFieldsItTakes() throws {
        #expect(try EventInput.event(named: "app_launch") == .appLaunch)
        #expect(try EventInput.event(named: "feature_opened", feature: "diary") == .featureOpened("diary"))
        #expect(try EventInput.event(named: "soft_prompt_answered", answer: "accept") == .softPromptAnswered(.accept))
        #expect(try EventInput.event(named: "settings_prompt_answered", answer: "open") == .settingsPromptAnswered(.open))
        #expect(try EventInput.event(named: "system_prompt_answered", granted: false) == .systemPromptAnswered(granted: false))
    }

    @Test func mistakesSayWhichFieldIsWrong() throws {
        #expect(throws: EventInput.Problem.unknownName) { try EventInput.event(named: "App Lunch") }
        // A name written like an app event of its own is one; its caller checks the policy declares it.
        #expect(try EventInput.event(named: "app_lunch") == .custom(try CustomEvent("app_lunch")))
        #expect(throws: EventInput.Problem.notTaken(field: "properties")) {
            try EventInput.event(named: "app_launch", properties: ["a": .integer(1)])
        }
        #expect(throws: EventInput.Problem.notTaken(field: "feature")) { try EventInput.event(named: "lesson_completed", feature: "x") }
        #expect(throws: EventInput.Problem.missing(field: "feature")) { try EventInput.event(named: "feature_opened") }
        #expect(throws: EventInput.Problem.emptyFeature) { try EventInput.event(named: "feature_opened", feature: "") }
        #expect(throws: EventInput.Problem.notTaken(field: "feature")) { try EventInput.event(named: "app_launch", feature: "x") }
        #expect(throws: EventInput.Problem.notTaken(field: "granted")) {
            try EventInput.event(named: "soft_prompt_answered", answer: "accept", granted: true)
        }
        #expect(throws: EventInput.Problem.invalidAnswer(expected: ["open", "cancel", "dismiss", "link"])) {
            try EventInput.event(named: "settings_prompt_answered", answer: "accept")
        }
    }
}
