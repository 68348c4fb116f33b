import Foundation
import PermitCore
import PermitLua
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
    /// Runs `options.users` users of `model` through `policy` in one VM and one thread, recording
    /// every call. For benchmarks: the users and their choices are those of a real run with the
    /// same seed.
    public static func recordCalls(
        policy: SimulationPolicy, model: UserModel, options: SimulationOptions
    ) async throws(PolicyError)
        -> RecordedCalls
    {
        var seeder = SplitMix64.stream(seed: options.seed ^ 0x5EED_B10C, index: 0)
        let vm = try LuaPolicy(
            source: policy.source, chunkName: policy.chunkName, limits: policy.limits, randomSeed: seeder.next(),
            copy: policy.copy)
        let recorder = RecordingPolicy(inner: vm)
        var events = 0
        for index in 0..<options.users {
            var user = UserSimulation(
                index: index, seed: options.seed, model: model, policy: recorder, processes: RestartedVM(vm: vm, serving: recorder),
                days: options.days,
                appEvents: model.appEvents(declaredBy: policy))
            await user.run()
            events += user.tally.events
        }
        return RecordedCalls(calls: recorder.calls, events: events)
    }
}
