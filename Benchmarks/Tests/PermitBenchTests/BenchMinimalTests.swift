import Foundation
import PermitBench
import PermitCore
import PermitLua
import Testing

/// The warm decision's comparison with a minimal C host that builds only the ctx fields the
/// policy reads: the reads it reports are the policy's, and the host gives the policy's decisions.
@Suite struct BenchMinimalTests {
    static func policy(_ path: String) throws -> (LuaPolicy, String) {
        let source = try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        return (try LuaPolicy(source: source, chunkName: path), source)
    }

    @Test func theMinimalHostBuildsWhatThePolicyReads() async throws {
        let (policy, source) = try Self.policy("policies/polite/policy.lua")
        let comparison = try await Bench.minimalComparison(
            policy: policy, source: source, events: Bench.defaultEvents, iterations: 400)
        let reads = comparison.reads
        // polite on feature_opened while not asked: the event, the status, its params, the soft-prompt history.
        for path in ["event.name", "event.feature", "status", "params", "history.soft_prompt.shown"] {
            #expect(reads.contains(path), "\(path) in \(reads)")
        }
        // Never read on these events, so never built: settings, platform, capabilities, locale.
        for path in ["settings", "platform", "capabilities", "locale", "history.launches"] {
            #expect(!reads.contains(path), "\(path) in \(reads)")
        }
        #expect(comparison.minimalNanoseconds > 0 && comparison.ratio > 0)
        // Permit's policy layer alone on the same calls: measured, and its ratio to the same host.
        #expect(comparison.policyLayerNanoseconds > 0)
        #expect(comparison.policyLayerFailedCalls == 0, "polite never fails")
    }

    /// The reference host builds every part of ctx a policy may read (arms, app-event counts)
    /// and gives the sandbox's helpers (`permit.within_hours`): the lessons pack is measured
    /// with the same decisions as in Permit.
    @Test func theReferenceHelpersMatchTheSandboxs() async throws {
        let (policy, source) = try Self.policy("policies/lessons/policy.lua")
        let events: [AppEvent] = [.appLaunch, try .custom("lesson_completed"), try .custom("lesson_completed")]
        let comparison = try await Bench.minimalComparison(policy: policy, source: source, events: events, iterations: 100)
        #expect(comparison.ratio > 0)
        // The lessons pack reads its arm, its event counts and the local hour (permit.within_hours).
        for path in ["user.arms.first_ask", "history.events.lesson_completed.count", "local_time.hour"] {
            #expect(comparison.reads.contains(path), "\(path) in \(comparison.reads)")
        }
    }
}
