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
        #expect(text.stdout.contains("abtest, experiment first_ask, per arm:"), "\(text.stdout)")
        #expect(text.stdout.contains("uncorrected: excludes 0"), "arms are uncorrected comparisons: \(text.stdout)")
    }

    /// A dialog makes the user delete the app, and all come back a day later; with 0.3
    /// sessions a day most of them do not open it again on day 2. Their arm is the one their
    /// first install had (the install id is the same), so no user falls out of the arms.
    @Test func everyUserIsCountedInExactlyOneArm() async throws {
        let file = try Self.policyFile()
        let model = try SimulateCommandTests.temporaryFile(
            "leaving.yaml",
            """
            os_versions: { "17.5": 1 }
            sessions_per_day: { poisson: 0.3 }
            feature_opens_per_session: 0
            features: { home: 1 }
            soft_prompt: { accept: 0.5 }
            system_dialog: { allow_cold: 0.3, allow_after_soft_accept: 0.8 }
            settings_prompt: { open: 0.2, enable: 0.5 }
            annoyance: { uninstall_per_prompt: 1 }
            reinstall: { chance: 1, after_days: 1, system_remembers: 0 }
            """)
        let result = try await SimulateCommandTests.permit([
            "simulate", file.path, "--model", model.path, "--users", "500", "--days", "2", "--seed", "3", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let policy = try #require((object["policies"] as? [[String: Any]])?.first)
        // The loud arm's users (30%) see a dialog, delete the app and come back on day 2.
        #expect((policy["reinstalls"] as? Int ?? 0) > 100)
        let arms = try #require(policy["arms"] as? [[String: Any]])
        #expect(arms.map { $0["users"] as? Int ?? 0 }.reduce(0, +) == 500)
        #expect((policy["users_without_arm"] as? [String: Int]) == ["first_ask": 0])
    }

    /// `--precision` covers the smallest arm: the loud arm has 30% of the users, so the run has
    /// about 1/0.3 times the users a policy share needs, and says what it covered.
    @Test func precisionCoversTheSmallestArm() async throws {
        let file = try Self.policyFile()
        let result = try await SimulateCommandTests.permit([
            "simulate", file.path, "--model", "examples/models/default.yaml", "--precision", "5pp", "--days", "1",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // 385 users give ±5 pp; a 30% arm needs 385 / 0.3 = 1,284, and a margin for the draw.
        #expect(result.stderr.contains("--precision ±5 pp: 1398 users per policy"), "\(result.stderr)")
        #expect(
            result.stdout.contains("the smallest arm, first_ask=loud (30% of the users), needs 385 of its own"),
            "\(result.stdout)")
        let widths = result.stdout.matches(of: /every one of its shares ±([0-9.]+) pp/).compactMap { Double($0.1) }
        #expect(widths.count == 1 && widths[0] <= 5, "\(result.stdout)")
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
