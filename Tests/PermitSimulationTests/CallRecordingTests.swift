import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// The calls a run records (what the benchmark package's minimal C host replays) are those of
/// the run itself.
@Suite struct CallRecordingTests {
    @Test func theRecordedUsersAreTheRunsUsers() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let options = SimulationOptions(users: 30, days: 5, seed: 3, workers: 1)
        for name in ["polite", "reminders"] {
            let policy = try pack(name)
            let run = await Simulation.run(policies: [policy], model: model, options: options)
            let recorded = try await Simulation.recordCalls(policy: policy, model: model, options: options)
            #expect(recorded.events == run.policies[0].events, "\(name)")
            let decides = recorded.calls.filter { $0.function == .decide }.count
            #expect(decides == recorded.events, "\(name): one decide per event")
            let plans = recorded.calls.count - decides
            #expect(name == "reminders" ? plans > 0 : plans == 0, "\(name): plan_reminders only where the policy has it")
        }
    }

    /// The recorder passes on every fact and call of the policy it records, and records the calls.
    @Test func theRecorderPassesOnEveryFactAndCall() {
        let probe = ProbePolicy()
        let recorder = RecordingPolicy(inner: probe)
        let differences = probe.differences(through: recorder)
        #expect(differences.isEmpty, "RecordingPolicy does not pass on \(differences)")
        #expect(recorder.calls.map(\.function) == [.decide, .planReminders])
    }
}
