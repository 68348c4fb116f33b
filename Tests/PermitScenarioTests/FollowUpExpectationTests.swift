import Foundation
import PermitInput
import Testing

@testable import PermitCore
@testable import PermitScenario

/// `expect_followup`: the decision that follows an answer iOS gives at once, in `expect`'s form.
@Suite struct FollowUpExpectationTests {
    /// Asks whenever a screen opens; when iOS answers at once with a denial, offers Settings.
    static let policy = ClosurePolicy(name: "asks") { context in
        switch context.event {
        case .featureOpened: return Decision(.requestPermission(options: [.alert]), reason: "asks")
        case .systemPromptAnswered(granted: false):
            var prompt = SettingsPrompt(title: "Off", message: "Turn them on.", open: "Open", cancel: "Later")
            prompt.id = "after_denial"
            return Decision(.settingsPrompt(prompt), reason: "denied at once")
        default: return nil
        }
    }

    @Test func theFollowUpIsMatchedAsExpectIs() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: f, expect: request_permission, expect_dialog: false,
                  expect_followup: { action: settings_prompt, id: after_denial, reason: at once }, expect_screen: settings_prompt }
            """, policy: Self.policy)
        #expect(failures(result) == [])
    }

    /// A wrong follow-up, and a step without one, fail with what happened instead.
    @Test func aMissingOrWrongFollowUpFails() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: f, expect: request_permission, expect_followup: none }
              - { answer: deny, expect: settings_prompt, expect_followup: settings_prompt }
              - { answer: cancel }
              - { event: feature_opened, feature: f, expect_followup: { action: none } }
            """, policy: Self.policy)
        #expect(
            failures(result) == [
                "step 2: expect_followup: expected a decision after an answer iOS gave at once, but there was none (the system dialog appeared)",
                "step 3: expect_followup: expected a decision after an answer iOS gave at once, but there was none (the decision was settings_prompt)",
                "step 5: expect_followup: expected none, got settings_prompt (reason: denied at once)",
            ])
    }

    @Test func expectFollowupNeedsAStepThatDecides() throws {
        #expect(throws: InputError.self) {
            try parse(
                """
                device: { os: "17.0" }
                steps:
                  - { settings: { authorization: denied }, expect_followup: none }
                """)
        }
    }
}
