import Foundation
import PermitCore
import PermitLua
import PermitSimulation
import PermitSimulator

/// Permit's CPU per event against the minimal C + Lua host's for the same calls.
public struct MinimalComparison: Sendable {
    /// Permit's CPU time per event, in nanoseconds.
    public let permitNanoseconds: Double
    /// The minimal host's CPU time per event for the same policy calls, in nanoseconds.
    public let minimalNanoseconds: Double
    /// Permit's policy layer alone on the same calls (`PolicyLayerReplay`), in nanoseconds: the
    /// part of `permitNanoseconds` that is not the engine's.
    public let policyLayerNanoseconds: Double
    /// Calls that failed in that replay (a policy error, the budget), as they did in the engine's run.
    public let policyLayerFailedCalls: Int
    /// The ctx paths the policy read (what the minimal host builds).
    public let reads: [String]

    /// How many times the minimal host's cost Permit's is (the goal is ≤ 1.5).
    public var ratio: Double { permitNanoseconds / max(1, minimalNanoseconds) }
    /// How many times the minimal host's cost Permit's policy layer alone is.
    public var policyLayerRatio: Double { policyLayerNanoseconds / max(1, minimalNanoseconds) }

    /// A comparison of Permit's CPU time per call with the minimal host's, and the ctx fields read.
    public init(
        permitNanoseconds: Double, minimalNanoseconds: Double,
        policyLayerNanoseconds: Double, policyLayerFailedCalls: Int = 0, reads: [String]
    ) {
        self.permitNanoseconds = permitNanoseconds
        self.minimalNanoseconds = minimalNanoseconds
        self.policyLayerNanoseconds = policyLayerNanoseconds
        self.policyLayerFailedCalls = policyLayerFailedCalls
        self.reads = reads
    }
}

extension Bench {
    /// Warm decisions through the engine (as `decisions`) measured in CPU time per event, against
    /// the minimal C host replaying the very calls the engine made to the policy for the same
    /// events. The Permit side runs first, then the host, then Permit again until it ran
    /// `MinimalReference.rounds` times; the best of each side, as the host's is the best of as
    /// many replays.
    public static func minimalComparison(
        policy: LuaPolicy, source: String, events: [AppEvent], iterations: Int, os: OSVersion = OSVersion(major: 16, minor: 4)
    ) async throws -> MinimalComparison {
        let recorder = RecordingPolicy(inner: policy)
        let recording = makeEngine(policy: recorder, os: os)
        for index in 0..<iterations { _ = await recording.handle(events[index % events.count]) }
        let calls = recorder.calls.map { (context: $0.context, planning: $0.function == .planReminders) }
        var permit = Double.infinity
        var minimal = Double.infinity
        var reads: [String] = []
        for _ in 0..<MinimalReference.rounds {
            let engine = makeEngine(policy: policy, os: os)
            let before = cpuSeconds()
            for index in 0..<iterations { _ = await engine.handle(events[index % events.count]) }
            permit = min(permit, (cpuSeconds() - before) * 1e9 / Double(iterations))
            if minimal.isInfinite {
                let measured = try MinimalReference.measure(
                    source: source, calls: calls, declaredEvents: policy.declaredEvents)
                minimal = measured.cpuNanoseconds / Double(iterations)
                reads = measured.reads
            }
        }
        let layer = try PolicyLayerReplay.measure(
            source: source, chunkName: policy.chunkName, limits: policy.limits, calls: calls)
        return MinimalComparison(
            permitNanoseconds: permit, minimalNanoseconds: minimal,
            policyLayerNanoseconds: layer.cpuNanoseconds / Double(iterations), policyLayerFailedCalls: layer.failedCalls,
            reads: reads)
    }

    /// A fresh engine on a simulated device with an in-memory store, as the warm bench uses.
    static func makeEngine(policy: any Policy, os: OSVersion) -> PermissionEngine {
        let platform = Platform(version: os)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let device: SimulatedDevice
        do {
            device = try SimulatedDevice(platform: platform, clock: clock)
        } catch {
            preconditionFailure("a fresh simulated phone starts not determined: \(error)")
        }
        return PermissionEngine(
            policy: policy, client: device, platform: platform, store: InMemoryLedgerStore(), clock: clock,
            configuration: EngineConfiguration(timeZone: TimeZone(identifier: "UTC")!, foregroundRechecks: []))
    }
}
