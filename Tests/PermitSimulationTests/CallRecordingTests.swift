import Foundation
import PermitCore
import PermitSimulator
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// What `Simulation.run`'s `processes` hook wraps is what every process of the run runs: a
/// recorder given through it sees the run's own calls (what the benchmarks' minimal host replays).
@Suite struct CallRecordingTests {
    @Test func theHookSeesEveryCallOfTheRun() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let options = SimulationOptions(users: 30, days: 5, seed: 3, workers: 1)
        for name in ["polite", "reminders"] {
            let policy = try pack(name)
            let run = await Simulation.run(policies: [policy], model: model, options: options)
            let recorded = await RecordedRun.record(policy: policy, model: model, options: options)
            #expect(recorded.events == run.policies[0].events, "\(name)")
            let decides = recorded.calls.filter { $0.function == .decide }.count
            #expect(decides == recorded.events, "\(name): one decide per event")
            let plans = recorded.calls.count - decides
            #expect(name == "reminders" ? plans > 0 : plans == 0, "\(name): plan_reminders only where the policy has it")
            // The wrapper changes nothing the run reports.
            let hooked = await Simulation.run(
                policies: [policy], model: model, options: options,
                processes: { block in WrappedPerProcess(block) { CallRecorder(inner: $0) } })
            #expect(hooked.json() == run.json(), "\(name)")
        }
    }

    /// The recorder passes on every fact and call of the policy it records, and records the calls.
    @Test func theRecorderPassesOnEveryFactAndCall() {
        let probe = ProbePolicy()
        let recorder = CallRecorder(inner: probe)
        let differences = probe.differences(through: recorder)
        #expect(differences.isEmpty, "CallRecorder does not pass on \(differences)")
        #expect(recorder.log.current.map(\.function) == [.decide, .planReminders])
    }
}
