import Foundation
import Testing

/// `permit simulate --sensitivity N` through the CLI: the text section, the JSON object, and
/// the flag's limits.
@Suite("permit simulate --sensitivity")
struct SensitivityCommandTests {
    static let run = [
        "simulate", "policies/polite", "policies/provisional-first", "--model", "examples/models/default.yaml",
        "--users", "60", "--days", "3", "--sensitivity", "2",
    ]

    @Test func textAndJSONCarryTheSensitivity() async throws {
        let text = try await SimulateCommandTests.permit(Self.run)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("sensitivity to the model: 2 models drawn"), "\(text.stdout)")
        #expect(text.stdout.contains("    verdict: "), "\(text.stdout)")
        #expect(text.stdout.contains("provisional.turn_off"), "\(text.stdout)")
        #expect(text.stdout.contains("360 simulated users"), "three runs of 2 × 60 users: \(text.stdout)")

        let json = try await SimulateCommandTests.permit(Self.run + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sensitivity = try #require(object["sensitivity"] as? [String: Any])
        #expect(sensitivity["draws"] as? Int == 2)
        #expect((sensitivity["models"] as? [Any])?.count == 2)
        let comparison = try #require((sensitivity["comparisons"] as? [[String: Any]])?.first)
        #expect(comparison["policy"] as? String == "provisional-first" && comparison["versus"] as? String == "polite")
        #expect((comparison["holds"] as? Int).map { $0 + (comparison["flips"] as? Int ?? 0) } == 2)
        #expect(comparison["sensitivity_verdict"] is String && comparison["most_sensitive"] is [Any])

        // Without the flag, no sensitivity key: the output is what it was.
        let plain = try await SimulateCommandTests.permit(Array(Self.run.dropLast(2)) + ["--format", "json"])
        let plainObject = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(plainObject["sensitivity"] == nil)
        #expect(plainObject["policies"] as? [Any] != nil)
    }

    @Test func theFlagsLimitsAreBadInput() async throws {
        for (arguments, message) in [
            (["--sensitivity", "0"], "--sensitivity takes a number of drawn models from 1 to 1000"),
            (
                ["--sensitivity", "2", "--sweep", "max_soft_prompts=1,2"],
                "a sweep has a best setting only with an objective; add --objective"
            ),
        ] {
            let result = try await SimulateCommandTests.permit(
                ["simulate", "policies/polite", "--model", "examples/models/default.yaml", "--users", "10"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        let one = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--sensitivity", "2",
        ])
        #expect(one.status == 2 && one.stderr.contains("give at least two policies"), "\(one.stderr)")
    }

    /// With `--sweep` and `--objective` one policy is enough: the draws judge the best setting.
    @Test func aSweepSaysHowOftenItsBestStaysBestOnTheDrawnModels() async throws {
        let sweep = [
            "--sweep", "ask=false,true", "--objective", "reach_day_2", "--confirm", "0", "--sensitivity", "3",
        ]
        let text = try await SweepCommandTests.run(sweep)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("on 3 models drawn from the ranges of the model's uncertain figures"), "\(text.stdout)")
        #expect(text.stdout.contains("best in 3 of 3, by a clear margin in 3"), "\(text.stdout)")
        #expect(
            text.stdout.contains(
                "  verdict: the best on this model, best by a clear margin on 3 of 3 drawn models: too few drawn models to call it robust"),
            "three draws are not enough for robust: \(text.stdout)")
        #expect(text.stdout.contains("1200 simulated users"), "four grids of 2 settings × 150 users: \(text.stdout)")

        let json = try await SweepCommandTests.run(sweep + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let best = try #require((object["sweep"] as? [String: Any])?["best"] as? [String: Any])
        let drawn = try #require(best["sensitivity"] as? [String: Any])
        #expect(drawn["draws"] as? Int == 3 && drawn["stays_best"] as? Int == 3)
        #expect(drawn["winners"] as? [String: Int] == ["ask=true": 3])
        #expect((drawn["objective_range"] as? [Double])?.count == 2)
        #expect(drawn["most_sensitive"] is [[String: Any]] && drawn["verdict"] is String)
    }
}
