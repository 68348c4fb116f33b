import Foundation
import Testing

/// `permit bench` compares with a minimal C host that builds only the ctx fields the policy
/// reads: the reads it reports are the policy's, and the host gives the policy's decisions.
@Suite struct BenchMinimalTests {
    @Test func theMinimalHostBuildsWhatThePolicyReads() async throws {
        let result = try await CLITests.permit(["bench", "policies/polite", "--iterations", "400", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let reads = try #require(json["minimal_ctx_reads"] as? [String])
        // polite on feature_opened while not asked: the event, the status, its params, the soft-prompt history.
        for path in ["event.name", "event.feature", "status", "params", "history.soft_prompt.shown"] {
            #expect(reads.contains(path), "\(path) in \(reads)")
        }
        // Never read on these events, so never built: settings, platform, capabilities, locale.
        for path in ["settings", "platform", "capabilities", "locale", "history.launches"] {
            #expect(!reads.contains(path), "\(path) in \(reads)")
        }
        #expect((json["minimal_cpu_per_event_ns"] as? Double ?? 0) > 0)
        #expect((json["minimal_ratio"] as? Double ?? 0) > 0)
        // The same host allocating from Permit's pool: measured too, and it reached the same
        // decisions (the command fails otherwise).
        let pooled = try #require(json["minimal_pooled_cpu_per_event_ns"] as? Double)
        let permit = try #require(json["cpu_per_event_ns"] as? Double)
        #expect(pooled > 0)
        #expect(abs((json["minimal_pooled_ratio"] as? Double ?? 0) - permit / pooled) < 0.01 * permit / pooled)
        // Permit's policy layer alone on the same calls: measured, and its ratio to the same host.
        let layer = try #require(json["policy_layer_cpu_per_event_ns"] as? Double)
        let minimal = try #require(json["minimal_cpu_per_event_ns"] as? Double)
        #expect(layer > 0)
        #expect(json["policy_layer_failed_calls"] as? Int == 0, "polite never fails")
        #expect(abs((json["policy_layer_ratio"] as? Double ?? 0) - layer / minimal) < 0.01 * layer / minimal + 0.01)
    }

    /// The reference host builds every part of ctx a policy may read (arms, app-event counts)
    /// and gives the sandbox's helpers (`permit.within_hours`): the lessons pack is measured
    /// with the same decisions as in Permit.
    @Test func theReferenceHelpersMatchTheSandboxs() async throws {
        let result = try await CLITests.permit([
            "bench", "policies/lessons", "--scenario", "policies/lessons/tests/soft-quiet-hours.yaml",
            "--iterations", "100", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["minimal_ratio"] as? Double ?? 0) > 0)
        let reads = try #require(json["minimal_ctx_reads"] as? [String])
        // The lessons pack reads its arm, its event counts and the local hour (permit.within_hours).
        for path in ["user.arms.first_ask", "history.events.lesson_completed.count", "local_time.hour"] {
            #expect(reads.contains(path), "\(path) in \(reads)")
        }
    }
}
