import Foundation
import Testing

@testable import PermitCore
@testable import PermitScenario

/// A polite policy in Swift, shaped like the one the scenario example (docs/reference/scenarios.md#scenarios) expects.
let polite = ClosurePolicy(
    name: "polite",
    decide: { ctx in
        let soft = SoftPrompt(
            title: .translations(["en": "Stay on track", "zh-Hans": "保持节奏"]), message: "We remind you.",
            accept: "Allow", decline: "Not now")
        let settings = SettingsPrompt(
            title: "Notifications are off", message: "Turn them on in Settings.", open: "Open", cancel: "Later",
            deepLink: .notificationSettings)
        switch (ctx.event, ctx.status) {
        case (.featureOpened, .notDetermined): return Decision(.softPrompt(soft), reason: "feature opened")
        case (.softPromptAnswered(.accept), _): return Decision(.requestPermission(options: [.alert, .sound]), reason: "accepted")
        case (.featureOpened, .denied): return Decision(.settingsPrompt(settings), reason: "denied before")
        default: return nil
        }
    }, planReminders: { _ in [9, 14, 20].map { ReminderRequest(day: 1, hour: $0, body: "How are you?") } })

func run(_ text: String, policy: any Policy = polite) async throws -> ScenarioResult {
    try await ScenarioRunner(policy: policy).run(try parse(text))
}

func failures(_ result: ScenarioResult) -> [String] {
    result.steps.flatMap { step in step.failures.map { "step \(step.number): \($0)" } }
}

@Suite struct ScenarioRunnerTests {
    @Test func theSpecExamplePasses() async throws {
        let result = try await run(specExample)
        #expect(failures(result) == [])
        #expect(result.passed)
        #expect(result.steps.count == 8)
        #expect(result.steps[2].outcome?.dialogShown == true)
        #expect(result.steps.last?.status == .authorized)
    }

    @Test func aWrongExpectationShowsExpectedActualAndReason() async throws {
        let result = try await run(
            minimal.replacingOccurrences(
                of: "  - event: app_launch\n",
                with: "  - event: app_launch\n  - { event: feature_opened, feature: diary, expect: none }\n"))
        #expect(!result.passed)
        #expect(failures(result) == ["step 2: expected none, got soft_prompt (reason: feature opened)"])
    }

    @Test func fieldExpectationsMatchLocalisedText() async throws {
        let scenario = """
            device: { os: "16.0", locale: zh-Hans }
            steps:
              - { event: feature_opened, feature: diary, expect: { action: soft_prompt, title: 保持节奏, accept: Allow } }
              - { answer: decline }
              - { event: feature_opened, feature: diary, expect: { title: Stay on track } }
              - { answer: dismiss }
            """
        let result = try await run(scenario)
        #expect(failures(result) == ["step 3: decision.title: expected \"Stay on track\", got \"保持节奏\""])
    }

    @Test func anUnexpectedWarningFailsTheStep() async throws {
        let scenario = """
            device: { os: "15.0" }
            initial: { authorization: denied }
            steps:
              - { event: feature_opened, feature: diary, expect: settings_prompt }
              - { answer: cancel }
            """
        let result = try await run(scenario)
        #expect(
            failures(result) == [
                "step 1: unexpected warning deep-link-fallback: the notification-settings link needs iOS 15.4; app_settings is used on iOS 15.0"
            ])
    }

    @Test func aPromptStaysOnScreenUntilAnswered() async throws {
        let scenario = """
            device: { os: "16.0" }
            steps:
              - { event: feature_opened, feature: diary, expect: soft_prompt }
              - { event: feature_opened, feature: diary }
            """
        let result = try await run(scenario)
        #expect(result.abortedAfterStep == 2)
        #expect(
            failures(result) == [
                "step 2: a soft prompt is on screen and stays until answered; this step must be one of `answer: accept`, "
                    + "`answer: decline`, `answer: dismiss`, `event: app_background`, `terminate: true`, `app_update: VERSION`"
            ])
    }

    @Test func theSystemDialogMustBeAnsweredWithAllowOrDeny() async throws {
        let scenario = """
            device: { os: "16.0" }
            steps:
              - { event: feature_opened, feature: diary }
              - { answer: accept, expect_dialog: true }
              - { answer: accept }
            """
        let result = try await run(scenario)
        #expect(
            failures(result) == [
                "step 3: the system dialog is on screen; answer it with allow, deny, not accept"
            ])
    }

    @Test func answeringWithNothingOnScreenFails() async throws {
        let result = try await run("device: { os: \"16.0\" }\nsteps:\n  - { answer: allow }\n")
        #expect(failures(result) == ["step 1: there is nothing on screen to answer with allow"])
    }

    @Test func reinstallVariants() async throws {
        let scenario = """
            device: { os: "9.3" }
            steps:
              - { event: feature_opened, feature: diary }
              - { answer: accept }
              - { answer: deny, expect_status: denied, expect_ledger: { legacy_registered: true } }
              - { reinstall: { system_remembers: true, keychain_survives: false } }
              - { event: app_launch, expect_status: not_determined, expect_ledger: { legacy_registered: false, launches: 1 } }
              - { event: feature_opened, feature: diary, expect: soft_prompt }
              - { answer: accept, expect_dialog: false, expect_status: denied }
              - { after: 2d, reinstall: true }
              - { event: app_launch, expect_status: not_determined }
              - { event: feature_opened, feature: diary }
              - { answer: accept, expect_dialog: true }
              - { answer: allow, expect_status: authorized, expect_pending: 3 }
            """
        let result = try await run(scenario)
        #expect(failures(result) == [])
    }

    @Test func ledgerAndPendingExpectationsReportActualValues() async throws {
        let scenario = """
            device: { os: "16.0", timezone: Asia/Taipei }
            initial: { authorization: authorized, ledger: { launches: 4, soft_prompt: { declined: 1 } } }
            steps:
              - { event: app_launch, expect_pending: 3, expect_ledger: { launches: 5, soft_prompt.declined: 1, denied_at: nil } }
              - { after: 1d, expect_pending: 1 }
              - { after: 1d, expect_pending: 0, expect_ledger: { launches: 6, state.variant: b } }
            """
        let result = try await run(scenario)
        #expect(
            failures(result) == [
                "step 3: ledger.launches: expected 6, got 5",
                "step 3: ledger.state.variant: expected \"b\", got nil",
            ])
    }

    @Test func policyErrorsFailUnlessExpected() async throws {
        let broken = ClosurePolicy(name: "broken") { ctx throws(PolicyError) in
            if ctx.event == .appLaunch {
                throw PolicyError(kind: .runtime, message: "attempt to index a nil value", file: "policy.lua", line: 12)
            }
            return nil
        }
        let unexpected = try await run(minimal, policy: broken)
        #expect(failures(unexpected) == ["step 1: unexpected policy error: policy.lua:12: attempt to index a nil value"])
        let expected = try await run(
            minimal.replacingOccurrences(of: "event: app_launch", with: "{ event: app_launch, expect_error: \"index a nil\" }"),
            policy: broken)
        #expect(failures(expected) == [])
        let wrong = try await run(
            minimal.replacingOccurrences(of: "event: app_launch", with: "{ event: app_launch, expect_error: \"syntax\" }"), policy: broken)
        #expect(failures(wrong).first?.contains("expected a policy error containing \"syntax\", got policy.lua:12") == true)
    }

    @Test func anImpossibleInitialStateIsAnInputError() async throws {
        do {
            _ = try await run("device: { os: \"11.0\" }\ninitial: { authorization: provisional }\nsteps: [{ event: app_launch }]\n")
            Issue.record("expected an input error")
        } catch {
            #expect("\(error)" == "tests/example.yaml:2:10: initial: provisional authorization needs iOS 12; this device runs iOS 11.0")
        }
    }

    @Test func settingsChangesTheAppCannotMakeFailTheStep() async throws {
        let result = try await run("device: { os: \"16.0\" }\nsteps:\n  - { settings: { authorization: authorized } }\n")
        #expect(
            failures(result) == [
                "step 1: cannot change Settings: the app is not listed in Settings › Notifications until it has asked for permission"
            ])
    }
}

@Suite struct ReminderExpectationTests {
    /// `local_times` compares wall-clock times in the device's zone; `expect_settings` the
    /// device's real settings. Both report what they found.
    @Test func localTimesAndSettingsAreChecked() async throws {
        let scenario = """
            device: { os: "16.0", timezone: Asia/Taipei }
            start: "2026-01-05T08:00:00Z"
            initial: { authorization: authorized }
            steps:
              - event: app_launch
                expect_reminders: { local_times: ["2026-01-06 09:00", "2026-01-06 14:00"] }
                expect_settings: { scheduled_delivery: enabled, alert: enabled }
            """
        let result = try await run(scenario)
        #expect(
            failures(result) == [
                "step 1: expected reminders at 2026-01-06 09:00, 2026-01-06 14:00 (Asia/Taipei), "
                    + "got 2026-01-06 09:00, 2026-01-06 14:00, 2026-01-06 20:00",
                "step 1: expected setting scheduled_delivery enabled, got disabled",
            ])
        #expect(
            parseError("device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect_reminders: { local_times: [\"9:00\"] } }\n")
                .contains("is not a local time"))
        #expect(
            parseError("device: { os: \"14\" }\nsteps:\n  - { event: app_launch, expect_settings: { time_sensitive: enabled } }\n")
                .contains("time_sensitive does not exist on iOS 14"))
    }

    @Test func alertOrBadgeAndSoundIsChecked() async throws {
        let scenario = """
            device: { os: "16.0" }
            initial: { authorization: authorized, settings: { alert: disabled, lock_screen: disabled, notification_center: disabled } }
            steps:
              - { event: app_launch, expect_reminders: { count: 3, alert: false } }
              - { after: 1d, event: app_foreground, expect_reminders: { count: 2, alert: true } }
            """
        let result = try await run(scenario)
        #expect(
            failures(result) == [
                "step 2: expected 2 reminder(s) scheduled, got 3",
                "step 2: expected reminders with an alert, but permit.reminder.1767776400 is badge and sound only",
            ])
        #expect(
            parseError("device: { os: \"16\" }\nsteps:\n  - { settings: { alert: disabled }, expect_reminders: { count: 1 } }\n")
                .contains("steps[1].expect_reminders: this step sends no event"))
        #expect(
            parseError("device: { os: \"16\" }\nsteps:\n  - { event: app_launch, expect_reminders: { cont: 1 } }\n")
                .contains("did you mean \"count\"?"))
    }
}
