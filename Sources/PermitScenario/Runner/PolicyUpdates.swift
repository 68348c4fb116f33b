import Foundation
import PermitCore
import PermitInput

/// The updatable policy behind `policy_update` steps. The policy lives in the app, so a
/// reinstall starts a fresh one; the notes it yields are what the timeline shows.
final class PolicyUpdates: Sendable {
    private let builtIn: any Policy
    private let makePolicy: @Sendable (any Policy) -> any UpdatablePolicy
    private let state: Locked<(policy: (any UpdatablePolicy)?, seenEvents: Int)>

    /// `nil` when the scenario has no `policy_update` step.
    ///
    /// - Throws: when it has one and there is no delivery to install with, or a trusted key
    ///   cannot be used.
    init?(
        _ scenario: Scenario, builtIn: any Policy, clock: ManualClock, delivery: (any PolicyDelivery)?
    ) throws(InputError) {
        guard let first = scenario.steps.first(where: { if case .policyUpdate = $0.action { true } else { false } }) else {
            return nil
        }
        guard let delivery else {
            throw InputError(
                "this runner cannot install policy bundles", at: first.location, field: "policy_update",
                hint: "run the scenario with `permit test` or `permit run`, or give ScenarioRunner a delivery")
        }
        do {
            makePolicy = try delivery.policies(trustedKeys: scenario.trustedKeys, hostParams: scenario.params, clock: clock)
        } catch {
            throw InputError(String(describing: error), at: scenario.trustedKeysLocation, field: "trusted_keys")
        }
        self.builtIn = builtIn
        state = Locked((nil, 0))
    }

    /// A fresh updatable policy serving the built-in one (at the start, and after a reinstall).
    func reset() -> any Policy {
        let fresh = makePolicy(builtIn)
        state.withLock { $0 = (fresh, 0) }
        return fresh
    }

    /// What one `policy_update` step did.
    struct Result {
        var note: String
        var refusal: String?

        /// Why the step fails against `expect_update`, or nil when it passes. Without
        /// `expect_update` a refusal fails the step.
        func failure(against expected: Scenario.ExpectedUpdate?) -> String? {
            switch (expected, refusal) {
            case (nil, let refusal?), (.installed?, let refusal?):
                return "policy update refused: \(refusal)"
            case (.refused?, nil):
                return "expected the policy update to be refused, it was installed"
            case (.refused(let piece?)?, let refusal?) where !refusal.contains(piece):
                return "expected the policy update to be refused with \"\(piece)\", got: \(refusal)"
            default:
                return nil
            }
        }
    }

    func install(_ url: URL) -> Result {
        guard let current = state.current.policy else { return Result(note: "no policy source", refusal: nil) }
        do {
            let installed = try current.installUpdate(contentsOf: url)
            _ = takeNewEvents()
            return Result(note: "installed \(installed) (policy \(current.name))", refusal: nil)
        } catch {
            _ = takeNewEvents()
            let refusal = String(describing: error)
            return Result(note: "policy update refused: \(refusal)", refusal: refusal)
        }
    }

    /// What the policy did on its own since last asked (the circuit breaker), as notes.
    func takeNewEvents() -> [String] {
        guard let current = state.current.policy else { return [] }
        let events = current.updateLog
        return state.withLock { state in
            let new = events.dropFirst(state.seenEvents)
            state.seenEvents = events.count
            return new.map { "policy source \($0)" }
        }
    }
}
