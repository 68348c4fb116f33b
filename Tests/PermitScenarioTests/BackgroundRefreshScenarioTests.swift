import Foundation
import PermitInput
import Testing

@testable import PermitCore
@testable import PermitScenario

/// The step `event: background_refresh`: the app runs in the background, only after it left the
/// foreground, and leaves its screen as the user left it.
@Suite struct BackgroundRefreshScenarioTests {
    @Test func aRunInTheBackgroundReadsSettingsAndPlansReminders() async throws {
        let scenario = """
            device: { os: "16.0" }
            initial: { authorization: denied }
            steps:
              - event: app_launch
              - event: app_background
              - settings: { authorization: authorized }
              - { after: 5m, event: background_refresh, expect: none, expect_status: authorized, expect_pending: 3 }
              - { event: app_foreground, expect_status: authorized }
            """
        let result = try await run(scenario)
        #expect(failures(result) == [])
        #expect(result.steps[3].outcome?.event == .backgroundRefresh)
        #expect(result.steps[3].outcome?.remindersScheduled.count == 3)
    }

    /// A prompt the user left on screen is there at the return; the run in the background
    /// between changed nothing on screen.
    @Test func thePromptOnScreenStaysForTheReturn() async throws {
        let scenario = """
            device: { os: "16.0" }
            steps:
              - event: app_launch
              - { event: feature_opened, feature: diary, expect: soft_prompt }
              - event: app_background
              - { event: background_refresh, expect_screen: soft_prompt }
              - { event: app_foreground, expect_screen: soft_prompt }
              - { answer: accept, expect: { action: request_permission } }
            """
        let result = try await run(scenario)
        #expect(failures(result) == [])
    }

    /// A policy that shows something at the run in the background has it voided, and the
    /// scenario sees the reason.
    @Test func aPromptDecidedThereIsVoided() async throws {
        let showy = ClosurePolicy { ctx in
            ctx.event == .backgroundRefresh
                ? Decision(.softPrompt(SoftPrompt(title: "Hi", message: "Allow?", accept: "Yes", decline: "No"))) : nil
        }
        let scenario = """
            device: { os: "16.0" }
            steps:
              - event: app_launch
              - event: app_background
              - { event: background_refresh, expect: none, expect_warning: app-not-active, expect_screen: nothing }
            """
        let result = try await run(scenario, policy: showy)
        #expect(failures(result) == [])
        #expect(result.steps[2].outcome?.proposed?.action.name == "soft_prompt")
    }

    /// iOS runs no background work for an app on screen: the step fails, says why and what to
    /// write, and the scenario stops there.
    @Test func inTheForegroundTheStepFails() async throws {
        let scenario = """
            device: { os: "16.0" }
            steps:
              - event: app_launch
              - event: background_refresh
              - event: app_background
            """
        let result = try await run(scenario)
        #expect(!result.passed)
        #expect(
            failures(result) == [
                "step 2: cannot run the app in the background: background_refresh is the app's work in the background "
                    + "(a BGAppRefreshTask, a background fetch, a silent push), which iOS runs only while the app is not "
                    + "in the foreground; leave the app first (`event: app_background`)"
            ])
        #expect(result.steps.count == 2)
    }

    @Test func theParserTakesTheEventAndRefusesProperties() throws {
        let scenario = try parse("device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\n  - event: background_refresh\n")
        #expect(scenario.steps[1].action == .event(.backgroundRefresh))
        #expect {
            try parse(
                "device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\n"
                    + "  - { event: background_refresh, properties: { a: 1 } }\n")
        } throws: { error in
            "\(error)".contains("background_refresh takes no properties")
        }
    }
}
