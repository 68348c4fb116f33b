import Foundation
import PermitCore
import PermitInput

/// Plays a scenario against the real engine on a simulated device with an injected clock
/// (docs/reference/scenarios.md#scenario-steps): a step does one thing; a prompt stays on screen until answered; a system dialog
/// must be answered with allow or deny; reinstall with or without the system remembering.
public struct ScenarioRunner: Sendable {
    /// The policy the scenario's first process runs.
    public let policy: any Policy
    /// Makes the policy of each later process (every `app_launch` after the app handled an
    /// event is a cold start); `nil` runs `policy` in every process, which suits a stateless
    /// Swift policy but lets a Lua policy's globals outlive the process.
    public let relaunch: PolicyFactory?
    /// How `policy_update` steps install bundles. The scenario layer knows no bundle format:
    /// the `permit` CLI passes PermitDelivery's `BundleDelivery`. Without one, a scenario with
    /// `policy_update` steps is an input error.
    public let delivery: (any PolicyDelivery)?

    /// A runner for `policy`, made anew by `relaunch` for each later process; `delivery` is
    /// needed only for `policy_update` steps.
    public init(policy: any Policy, relaunch: PolicyFactory? = nil, delivery: (any PolicyDelivery)? = nil) {
        self.policy = policy
        self.relaunch = relaunch
        self.delivery = delivery
    }

    /// Runs the scenario. Setup problems the file causes (an initial state iOS cannot be in)
    /// are input errors; everything the policy does is reported in the result.
    public func run(_ scenario: Scenario) async throws(InputError) -> ScenarioResult {
        var playback = try ScenarioPlayback(scenario, policy: policy, relaunch: relaunch, delivery: delivery)
        var results: [StepResult] = []
        var aborted: Int?
        for step in scenario.steps {
            let (result, aborts) = await playback.play(step)
            results.append(result)
            if aborts {
                aborted = step.number
                break
            }
        }
        return ScenarioResult(
            name: scenario.name, file: scenario.file, policyName: policy.name,
            start: Int64(scenario.start.timeIntervalSince1970), steps: results, abortedAfterStep: aborted,
            totalSteps: scenario.steps.count)
    }
}
