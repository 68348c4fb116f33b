import Foundation
import PermitTestSupport
import Testing

/// `--time-limit` and `--instruction-budget` reach every verb that runs a policy. `run`, `test`
/// and `decide` had them first; `check` (the file's main chunk), `bench` (the measured
/// decisions and cold starts) and `simulate` (every block's VM) share the same definition
/// (`LimitOptions`). A policy that needs about 80,000 instructions passes under the defaults
/// and fails under a budget of 10,000 only if the flag reached the VM.
@Suite struct LimitFlagsTests {
    static let loop = "local n = 0 for i = 1, 20000 do n = n + i end"

    /// Heavy where the file is loaded (its main chunk), or in `decide`.
    static func tree() -> Tree {
        let tree = Tree()
        tree.write("heavy-load.lua", "\(loop)\nreturn { name = 'heavy-load', decide = function(ctx) return nil end }\n")
        tree.write(
            "heavy-decide.lua",
            """
            return { name = "heavy-decide", decide = function(ctx)
              \(loop)
              return { action = "none", reason = tostring(n) }
            end }
            """)
        return tree
    }

    @Test func checkRunsTheMainChunkUnderTheFlags() async throws {
        let tree = Self.tree()
        let fine = try await CLITests.permit(["check", tree.path("heavy-load.lua")])
        #expect(fine.status == 0, "\(fine.stdout)\(fine.stderr)")
        let limited = try await CLITests.permit(["check", tree.path("heavy-load.lua"), "--instruction-budget", "10000"])
        #expect(limited.status == 2)
        #expect(limited.stdout.contains("instruction budget of 10000 exceeded"), "\(limited.stdout)\(limited.stderr)")
    }

    @Test func benchMeasuresUnderTheFlags() async throws {
        let tree = Self.tree()
        let run = try await CLITests.permit([
            "bench", tree.path("heavy-decide.lua"), "--iterations", "20", "--format", "json", "--instruction-budget", "10000",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect((object?["policy_errors"] as? Int ?? 0) > 0, "\(run.stdout)")
    }

    @Test func simulateRunsEveryBlockUnderTheFlags() async throws {
        let tree = Self.tree()
        let run = try await CLITests.permit([
            "simulate", tree.path("heavy-decide.lua"), "--model", "examples/models/default.yaml", "--users", "3",
            "--days", "1", "--format", "json", "--instruction-budget", "10000",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"instruction_budget\""), "\(run.stdout)")
        #expect(run.stdout.contains("instruction budget of 10000 exceeded"), "\(run.stdout)")
    }

    /// `permit bench`'s cold start is what an app waits for before its first answer: the VM,
    /// the policy loaded, and the first decision. With a decision far dearer than loading, the
    /// cold start cannot be cheaper than half a warm decision.
    @Test func benchColdStartIncludesTheFirstDecision() async throws {
        let tree = Tree()
        tree.write(
            "slow-decide.lua",
            """
            return { name = "slow-decide", decide = function(ctx)
              local n = 0
              for i = 1, 300000 do n = n + i end
              return { action = "none", reason = tostring(n) }
            end }
            """)
        let run = try await CLITests.permit(["bench", tree.path("slow-decide.lua"), "--iterations", "60", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let cold = try #require(object["cold_start_us"] as? Double) * 1000
        let warm = try #require(object["median_ns"] as? Double)
        #expect(cold >= warm / 2, "cold start \(cold) ns against a warm decision of \(warm) ns")
    }

    @Test(arguments: [["check"], ["bench", "--iterations", "1"], ["simulate", "--model", "examples/models/default.yaml"]])
    func aLimitThatIsNotPositiveIsAUsageError(verb: [String]) async throws {
        let tree = Self.tree()
        let run = try await CLITests.permit([verb[0], tree.path("heavy-decide.lua")] + verb.dropFirst() + ["--time-limit", "0"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--time-limit must be a positive number of milliseconds"), "\(run.stderr)")
    }
}
