import Foundation
import PermitCore
import PermitSimulation
import PermitSimulator

/// Every policy call a few simulated users make, with the context each call saw: what
/// `permit-benchmark` replays through its minimal C + Lua host, so that the limit it measures
/// does exactly the Lua work the simulation asks for (the same events, the same mix of
/// `decide` and `plan_reminders`, the same histories).
public struct RecordedCalls: Sendable {
    /// The calls in the order they were made.
    public var calls: [(function: RecordingPolicy.Function, context: PolicyContext)]
    /// Simulated events those users lived.
    public var events: Int
}

extension Simulation {
    /// Runs `options.users` users of `model` through `policy` on one worker, as `run` does
    /// (the same users, blocks and VMs: the users and their choices are those of a real run
    /// with the same seed), recording every call each process's policy answers through the
    /// run's `processes` hook.
    public static func recordCalls(
        policy: SimulationPolicy, model: UserModel, options: SimulationOptions
    ) async -> RecordedCalls {
        var single = options
        single.workers = 1
        let log = RecordingPolicy.Log()
        let run = await Simulation.run(
            policies: [policy], model: model, options: single,
            processes: { block in WrappedPerProcess(block) { RecordingPolicy(inner: $0, log: log) } })
        return RecordedCalls(calls: log.calls, events: run.policies[0].events)
    }
}
