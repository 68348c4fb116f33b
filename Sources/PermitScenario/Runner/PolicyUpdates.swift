import Foundation
import PermitCore
import PermitInput
import PermitSimulator

/// The updatable policy behind `policy_update` steps. What it installed lives in the app's
/// storage, a directory of its own that outlives the app's process (each process rebuilds
/// the updatable policy from it, as a relaunched app does) and that a reinstall empties; the
/// notes it yields are what the timeline shows.
final class PolicyUpdates: Sendable {
    private let makePolicy: @Sendable (any Policy, URL) -> any UpdatablePolicy
    /// The scenario's own folder; each install of the app has a storage directory inside.
    private let root: URL
    private let state: Locked<(policy: (any UpdatablePolicy)?, seenEvents: Int, install: Int)>

    /// `nil` when the scenario has no `policy_update` step.
    ///
    /// - Throws: when it has one and there is no delivery to install with, or a trusted key
    ///   cannot be used.
    init?(_ scenario: Scenario, clock: ManualClock, delivery: (any PolicyDelivery)?) throws(InputError) {
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
        root = FileManager.default.temporaryDirectory.appendingPathComponent("permit-scenario-\(UUID().uuidString)")
        state = Locked((nil, 0, 1))
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Where the current install of the app keeps what it installed.
    private var storage: URL { root.appendingPathComponent("install-\(state.current.install)") }

    /// The updatable policy of a new process, serving `builtIn` until the storage holds a
    /// bundle an earlier process installed.
    func start(builtIn: any Policy) -> any Policy {
        let fresh = makePolicy(builtIn, storage)
        state.withLock {
            $0.policy = fresh
            $0.seenEvents = 0
        }
        return fresh
    }

    /// The process ends: what the policy queued for its storage is written first.
    func end() {
        state.current.policy?.waitUntilSaved()
        state.withLock { $0.policy = nil }
    }

    /// A reinstall: the app's storage is gone, the next process starts from nothing.
    func reinstall() {
        try? FileManager.default.removeItem(at: storage)
        state.withLock { $0.install += 1 }
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
