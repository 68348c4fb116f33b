import PermitCore
import PermitSimulator

@testable import PermitSimulation

/// Every policy call a run's users made, with the context each call saw, and the events they
/// lived: recorded through `Simulation.run`'s `processes` hook, so the users are the run's own.
struct RecordedRun {
    var calls: [(function: CallRecorder.Function, context: PolicyContext)]
    var events: Int

    /// Runs `options.users` users of `model` through `policy` on one worker (the calls then come
    /// in the users' order), recording each call.
    static func record(policy: SimulationPolicy, model: UserModel, options: SimulationOptions) async -> RecordedRun {
        var single = options
        single.workers = 1
        let log = CallRecorder.Log([])
        let run = await Simulation.run(
            policies: [policy], model: model, options: single,
            processes: { block in WrappedPerProcess(block) { CallRecorder(inner: $0, log: log) } })
        return RecordedRun(calls: log.current, events: run.policies[0].events)
    }
}
