import Foundation
import PermitTestSupport
import Testing

/// `permit simulate` for a policy with experiments (a per-arm breakdown with intervals) and
/// `--param` overrides.
@Suite("permit simulate: arms and params")
struct ArmsAndParamsTests {
    /// Quiet arm: provisional at the first launch; loud arm: the system dialog at once (when
    /// `ask` is on).
    static let policy = """
        return {
          name = "abtest",
          params = { ask = true },
          experiments = { first_ask = { quiet = 70, loud = 30 } },
          decide = function(ctx)
            if ctx.event.name ~= "app_launch" or ctx.status ~= "not_determined" or not ctx.params.ask then return nil end
            if ctx.user.arms.first_ask == "quiet" and ctx.capabilities.provisional then
              return { action = "request_permission", options = { "alert", "provisional" }, reason = "quiet" }
            end
            return { action = "request_permission", options = { "alert" }, reason = "loud" }
          end,
        }
        """

    static func policyFile() throws -> URL {
        try SimulateCommandTests.temporaryFile("abtest.lua", policy)
    }

    /// One day is enough: the policy asks at the first launch. 600 users make three blocks,
    /// so the one-worker run below splits them differently from the default.
    static func run(_ extra: [String], policy: URL, users: Int = 600) async throws -> ProcessResult {
        try await SimulateCommandTests.permit(
            [
                "simulate", policy.path, "--model", "examples/models/default.yaml",
                "--users", "\(users)", "--days", "1", "--seed", "5",
            ] + extra)
    }

    @Test func armsSplitUsersCloseToTheirWeightsWithIntervals() async throws {
        let file = try Self.policyFile()
        let result = try await Self.run(["--format", "json"], policy: file)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let policy = try #require((object["policies"] as? [[String: Any]])?.first)
        let arms = try #require(policy["arms"] as? [[String: Any]])
        #expect(arms.map { $0["arm"] as? String } == ["loud", "quiet"])
        let users = arms.map { $0["users"] as? Int ?? 0 }
        #expect(users.reduce(0, +) == 600)
        // 600 users at 30%: the standard error is 1.9 points; 7.5 points is 4 of them (equal or
        // swapped weights, 50% or 70%, are far outside).
        #expect(abs(Double(users[0]) / 600 - 0.30) < 0.075, "\(users)")
        // Quiet delivery only in the quiet arm; full alerts only in the loud one.
        func share(_ arm: [String: Any], _ state: String) -> Double {
            (((arm["reach"] as? [String: Any])?["day_1"] as? [String: Any])?[state] as? [String: Any])?["share"] as? Double ?? -1
        }
        func interval(_ arm: [String: Any]) -> [Double] {
            ((arm["can_receive_alerts"] as? [String: Any])?["day_1"] as? [String: Any])?["ci95"] as? [Double] ?? []
        }
        #expect(share(arms[0], "quiet") == 0)
        #expect(share(arms[1], "quiet") > 0.5)
        #expect(interval(arms[0]).count == 2 && interval(arms[0])[0] < interval(arms[0])[1])
        #expect((arms[1]["vs_first_arm"] as? [String: Any])?["arm"] as? String == "loud")

        // Arms come from each user's install id, not from the worker that ran it.
        let oneWorker = try await Self.run(["--format", "json", "--workers", "1"], policy: file)
        #expect(oneWorker.stdout == result.stdout)

        let text = try await Self.run([], policy: file)
        #expect(text.stdout.contains("abtest, experiment first_ask, per arm (day 1):"), "\(text.stdout)")
        #expect(text.stdout.contains("clear difference"))
    }

    @Test func paramsOverrideOnePolicyOrAll() async throws {
        let file = try Self.policyFile()
        let off = try await Self.run(["--param", "ask=false", "--format", "json"], policy: file, users: 100)
        #expect(off.status == 0, "\(off.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(off.stdout.utf8)) as? [String: Any]
        let prompts = ((object?["policies"] as? [[String: Any]])?.first?["prompts_per_user"] as? [String: Any])
        #expect(prompts?["system"] as? Double == 0, "no dialog at all with ask=false")
        let named = try await Self.run(["--param", "abtest:ask=false", "--format", "json"], policy: file, users: 100)
        #expect(named.stdout == off.stdout)

        let typo = try await Self.run(["--param", "aks=false"], policy: file)
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("did you mean \"ask\"?"), "\(typo.stderr)")
        let unknownPolicy = try await Self.run(["--param", "abtset:ask=false"], policy: file)
        #expect(unknownPolicy.status == 2)
        #expect(unknownPolicy.stderr.contains("did you mean \"abtest\"?"), "\(unknownPolicy.stderr)")
        let wrongType = try await Self.run(["--param", "ask=3"], policy: file)
        #expect(wrongType.status == 2)
    }
}
