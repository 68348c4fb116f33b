import Foundation
import PermitBench
import PermitCore
import PermitLua
import PermitSimulation
import Testing

/// The calls a recording run keeps (what the minimal C host replays) are those of the run itself.
@Suite struct CallRecordingTests {
    @Test func theRecordedUsersAreTheRunsUsers() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let options = SimulationOptions(users: 30, days: 5, seed: 3, workers: 1)
        for name in ["polite", "reminders"] {
            let policy = try pack(name)
            let run = await Simulation.run(policies: [policy], model: model, options: options)
            let recorded = await Simulation.recordCalls(policy: policy, model: model, options: options)
            #expect(recorded.events == run.policies[0].events, "\(name)")
            let decides = recorded.calls.filter { $0.function == .decide }.count
            #expect(decides == recorded.events, "\(name): one decide per event")
            let plans = recorded.calls.count - decides
            #expect(name == "reminders" ? plans > 0 : plans == 0, "\(name): plan_reminders only where the policy has it")
        }
    }

    /// The recorder passes on the recorded policy's facts and answers, and records each call.
    @Test func theRecorderPassesOnFactsAndCalls() throws {
        let source = try String(
            contentsOf: repositoryRoot.appendingPathComponent("policies/reminders/policy.lua"), encoding: .utf8)
        let policy = try LuaPolicy(source: source, chunkName: "reminders/policy.lua")
        let recorder = RecordingPolicy(inner: policy)
        #expect(recorder.declaration == policy.declaration)
        let context = PolicyContext(
            event: .appLaunch, status: .authorized, previousStatus: .authorized,
            settings: .typical(for: .authorized, on: OSVersion(major: 17)), platform: Platform(version: OSVersion(major: 17)),
            history: Ledger(), now: 1_767_600_000)
        #expect(try recorder.answer(context).decision.get() == policy.answer(context).decision.get())
        #expect(try recorder.planReminders(context) == policy.planReminders(context))
        #expect(recorder.calls.map(\.function) == [.decide, .planReminders])
        #expect(throws: PolicyError.self) { try recorder.validate(params: ["no_such_param": .bool(true)]) }
    }
}
