import Foundation
import PermitInput
import PermitLua
import Testing

@testable import PermitCore
@testable import PermitScenario

/// Every `app_launch` is a cold start: iOS sends didFinishLaunching once per process, so each
/// launch builds a new engine and a new policy from what the app saved (docs/reference/scenarios.md#app-process).
@Suite struct ProcessLifetimeTests {
    /// A Lua policy that counts the launches its own VM has seen in a chunk-level local (the
    /// policy's own state, gone with its process), and says which status change it saw.
    static let counting = """
        local launches = 0
        return { name = "counting", decide = function(ctx)
          if ctx.event.name ~= "app_launch" then return nil end
          launches = launches + 1
          return { action = "none", reason = "launch " .. launches .. " of this VM, "
                   .. ctx.previous_status .. " -> " .. ctx.status }
        end }
        """

    /// A runner whose every later process loads the policy again, as `permit test` does.
    func runner(_ source: String = counting) throws -> ScenarioRunner {
        let load: PolicyFactory = { () throws(PolicyError) -> any Policy in
            try LuaPolicy(source: source, chunkName: "counting.lua")
        }
        return ScenarioRunner(policy: try load(), relaunch: load)
    }

    func reasons(_ result: ScenarioResult) -> [String?] {
        result.steps.map { $0.outcome?.decision.reason ?? $0.outcome?.proposed?.reason }
    }

    @Test func aSecondLaunchRunsAFreshPolicyVM() async throws {
        let result = try await runner().run(
            try parse(
                """
                device: { os: "17.0" }
                initial: { authorization: authorized }
                steps:
                  - event: app_launch
                  - event: app_background
                  - { after: 1h, event: app_launch }
                """))
        #expect(failures(result) == [])
        #expect(reasons(result)[0] == "launch 1 of this VM, unknown -> authorized")
        #expect(reasons(result)[2] == "launch 1 of this VM, authorized -> authorized")
        #expect(result.steps[2].notes.first?.hasPrefix("a new process:") == true)
        // The first launch found the process the scenario begins with, unused: no new one.
        #expect(result.steps[0].notes == [])
    }

    @Test func reinstallResetsThePolicysOwnState() async throws {
        let result = try await runner().run(
            try parse(
                """
                device: { os: "17.0" }
                steps:
                  - event: app_launch
                  - reinstall: true
                  - event: app_launch
                """))
        #expect(failures(result) == [])
        #expect(reasons(result)[2] == "launch 1 of this VM, unknown -> not_determined")
    }

    /// The rule "cleared when it was authorized and now is denied" must fire at the launch
    /// after the user turned notifications off while the app was not running.
    @Test func previousStatusAtAColdLaunchIsWhatTheLedgerLastSaw() async throws {
        let result = try await runner().run(
            try parse(
                """
                device: { os: "17.0" }
                initial: { authorization: authorized }
                steps:
                  - event: app_launch
                  - terminate: true
                  - settings: { authorization: denied }
                  - { after: 1d, event: app_launch, expect_status: denied }
                """))
        #expect(failures(result) == [])
        #expect(reasons(result)[3] == "launch 1 of this VM, authorized -> denied")
        #expect(result.steps[3].outcome?.statusBefore == .authorized)
    }

    /// A policy that offers its soft prompt at every launch until it is answered.
    static let asksAtLaunch = ClosurePolicy(name: "asks-at-launch") { ctx in
        guard ctx.event == .appLaunch, ctx.status == .notDetermined else {
            return ctx.event == .softPromptAnswered(.accept) ? Decision(.requestPermission(options: [.alert])) : nil
        }
        return Decision(
            .softPrompt(SoftPrompt(title: "Stay on track", message: "We remind you.", accept: "Allow", decline: "Not now")),
            reason: "launch \(ctx.history.launches), not asked")
    }

    @Test func terminateClearsASoftPromptAndTheNextLaunchDecidesAgain() async throws {
        let result = try await ScenarioRunner(policy: Self.asksAtLaunch).run(
            try parse(
                """
                device: { os: "17.0" }
                steps:
                  - { event: app_launch, expect: soft_prompt }
                  - { terminate: true, expect_ledger: { soft_prompt.shown: 1, soft_prompt.accepted: 0, soft_prompt.dismissed: 0 } }
                  - { after: 1d, event: app_launch, expect: { action: soft_prompt, reason: "launch 2, not asked" } }
                  - { answer: accept, expect: request_permission, expect_dialog: true }
                  - answer: allow
                """))
        #expect(failures(result) == [])
        #expect(
            result.steps[1].notes == [
                "the app's process ended: its engine, its policy's globals and its screen are gone; the next app_launch "
                    + "is a cold start (a soft prompt on screen went with it, unanswered)"
            ])
    }

    @Test func stepsThatNeedTheAppAfterItsProcessEndedAreInputErrors() {
        let answer = parseError(
            """
            device: { os: "17.0" }
            steps:
              - event: app_launch
              - terminate: true
              - answer: accept
            """)
        #expect(
            answer
                == "tests/example.yaml:5:5: answer: step 3: answer accept needs the app running, but the app's process "
                + "ended at step 2 (terminate); add an app_launch step")
        let event = parseError(
            """
            device: { os: "17.0" }
            steps:
              - event: app_launch
              - reinstall: true
              - { after: 1d, settings: { authorization: denied } }
              - { event: feature_opened, feature: diary }
            """)
        #expect(
            event
                == "tests/example.yaml:6:5: event: step 4: feature_opened feature=\"diary\" needs the app running, but the app's process "
                + "ended at step 2 (reinstall); add an app_launch step")
        let twice = parseError("device: { os: \"17.0\" }\nsteps:\n  - terminate: true\n  - terminate: true\n")
        #expect(twice.hasPrefix("tests/example.yaml:4:5: terminate: step 2: terminate: the app's process ended at step 1"))
        let timeZone = parseError(
            "device: { os: \"17.0\" }\nsteps:\n  - terminate: true\n  - { timezone: Asia/Tokyo, expect: none }\n")
        #expect(timeZone.hasPrefix("tests/example.yaml:4:5: timezone: step 2: the app's process ended at step 1"))
        #expect(parseError("device: { os: \"17.0\" }\nsteps:\n  - terminate: false\n").contains("terminate: false does nothing"))
        // What the world does needs no process; an app_launch starts the next one.
        #expect(
            parseError(
                """
                device: { os: "17.0" }
                steps:
                  - terminate: true
                  - settings: { authorization: denied }
                  - { after: 1d, timezone: Asia/Tokyo }
                  - event: app_launch
                  - { event: feature_opened, feature: diary }
                """) == "no error")
    }
}
