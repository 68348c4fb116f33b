import Foundation
import Testing

@testable import PermitCore
@testable import PermitScenario

/// A policy that declares no params.
struct NoParams: Policy {
    let declaration = PolicyDeclaration(name: "no-params")
    func answer(_ context: PolicyContext) -> PolicyAnswer { PolicyAnswer(decision: .success(nil), trace: "") }
    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] { [] }
    func validate(params: [String: PolicyValue]) throws(PolicyError) {
        if let key = params.keys.first { throw PolicyError(kind: .load, field: "params.\(key)", message: "no such param") }
    }
    func takeTrace() -> String { "" }
    func eventHandled(errors: [PolicyError]) {}
}

/// `permit decide`'s library call: one event on a simulated device in a given status.
@Suite struct SingleDecisionTests {
    let sixteen = Platform(version: OSVersion(major: 16, minor: 4), isAppClip: false)

    @Test func oneEventGoesThroughTheEngine() async throws {
        let decision = SingleDecision(platform: sixteen, status: .notDetermined)
        let outcome = try await decision.outcome(of: .featureOpened("diary"), policy: polite)
        #expect(outcome.decision.action.name == "soft_prompt")
        #expect(outcome.statusAfter == .notDetermined)
    }

    /// `permit decide --app-clip --status ephemeral` is an App Clip that asks for ephemeral
    /// notifications (docs/platform.md A-01): the status holds.
    @Test func anEphemeralAppClip() async throws {
        let clip = Platform(version: OSVersion(major: 16, minor: 4), isAppClip: true)
        let outcome = try await SingleDecision(platform: clip, status: .ephemeral).outcome(of: .appLaunch, policy: polite)
        #expect(outcome.statusAfter == .ephemeral)
    }

    @Test func aStatusTheDeviceCannotHaveIsAProblemOfTheStatus() async {
        let eleven = Platform(version: OSVersion(major: 11), isAppClip: false)
        do {
            _ = try await SingleDecision(platform: eleven, status: .provisional).outcome(of: .appLaunch, policy: polite)
            Issue.record("expected a problem")
        } catch {
            guard case .status = error else { Issue.record("expected .status, got \(error)"); return }
        }
    }

    @Test func paramsThePolicyDoesNotTakeAreAProblemOfTheParams() async {
        do {
            _ = try await SingleDecision(platform: sixteen, status: .denied, params: ["nope": .integer(1)])
                .outcome(of: .appLaunch, policy: NoParams())
            Issue.record("expected a problem")
        } catch {
            guard case .params(let error) = error else { Issue.record("expected .params, got \(error)"); return }
            #expect(error.field == "params.nope")
        }
    }
}
