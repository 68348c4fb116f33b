import Foundation
import PermitBench
import PermitCore
import PermitSimulation
import Testing

/// The minimal host and the policy-layer replay run the very calls a simulation recorded.
@Suite struct MinimalHostTests {
    /// The minimal host replays a run's calls, every one of them, and reaches the decisions the
    /// full ctx gives (`measure` throws otherwise).
    @Test func theMinimalHostReplaysTheRunsCalls() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let policy = try pack("reminders")
        let recorded = await Simulation.recordCalls(
            policy: policy, model: model, options: SimulationOptions(users: 20, days: 5, seed: 3, workers: 1))
        let measured = try MinimalReference.measure(
            source: policy.source, calls: recorded.calls.map { ($0.context, $0.function == .planReminders) },
            declaredEvents: policy.declaredEvents, rounds: 1)
        #expect(measured.calls == recorded.calls.count)
        #expect(measured.cpuNanoseconds > 0)
    }

    /// Permit's policy layer replays the same calls without the engine, and counts the calls
    /// that fail in it: none for a pack, every decide for a policy whose decide raises.
    @Test func thePolicyLayerReplaysTheRunsCalls() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let policy = try pack("reminders")
        let recorded = await Simulation.recordCalls(
            policy: policy, model: model, options: SimulationOptions(users: 20, days: 5, seed: 3, workers: 1))
        let calls = recorded.calls.map { (context: $0.context, planning: $0.function == .planReminders) }
        #expect(calls.contains { $0.planning } && calls.contains { !$0.planning })
        let replayed = try PolicyLayerReplay.measure(
            source: policy.source, chunkName: policy.chunkName, limits: policy.limits, calls: calls, rounds: 1)
        #expect(replayed.cpuNanoseconds > 0)
        #expect(replayed.failedCalls == 0)

        let raising = """
            return { name = "raising", decide = function(ctx) error("no decision") end,
                     plan_reminders = function(ctx) return {} end }
            """
        let failing = try PolicyLayerReplay.measure(source: raising, chunkName: "raising.lua", calls: calls, rounds: 2)
        #expect(failing.failedCalls == calls.filter { !$0.planning }.count)
    }
}
