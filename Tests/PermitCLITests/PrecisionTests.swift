import Foundation
import PermitSimulation
import Testing

/// `--precision`: the user count that bounds every reported share's 95% interval.
@Suite("permit simulate --precision")
struct PrecisionTests {
    @Test func theCountIsTheWorstCaseFormula() throws {
        #expect(Precision("0.5pp")?.users == 38_415)
        #expect(Precision("1pp")?.users == 9_604)
        #expect(Precision("5pp")?.users == 385)
        for bad in ["0.5", "0.5%", "pp", "-1pp", "0pp", "60pp", "nanpp"] { #expect(Precision(bad) == nil, "\(bad)") }
    }

    /// At the count it picks, Wilson's interval is within the target for every possible share.
    @Test func everyShareAtThePickedCountIsWithinTheTarget() throws {
        for text in ["0.5pp", "2pp", "5pp", "10pp"] {
            let precision = try #require(Precision(text))
            let n = precision.users
            for successes in stride(from: 0, through: n, by: max(1, n / 500)) {
                let interval = Confidence.wilson(successes: successes, of: n)
                #expect((interval.high - interval.low) / 2 <= precision.halfWidth + 1e-12, "\(text), \(successes)/\(n)")
            }
        }
    }

    /// Through the CLI: the run uses the picked count and every interval it prints is that narrow.
    @Test func theRunUsesThePickedCount() async throws {
        let result = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "policies/provisional-first", "--model", "examples/models/default.yaml",
            "--precision", "5pp", "--days", "3", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["users"] as? Int == 385)
        // Announced before the run, so a target that needs millions of users can be stopped.
        #expect(result.stderr.split(separator: "\n").contains("permit: --precision ±5 pp: 385 users per policy"), "\(result.stderr)")
        // A sweep runs that many users for each setting, and says so.
        let sweep = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--precision", "5pp", "--days", "2",
            "--sweep", "max_soft_prompts=1,2",
        ])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        #expect(sweep.stderr.split(separator: "\n").contains("permit: --precision ±5 pp: 385 users per setting"), "\(sweep.stderr)")
        var checked = 0
        func visit(_ value: Any, underDifference: Bool) {
            if let table = value as? [String: Any] {
                for (key, inner) in table { visit(inner, underDifference: underDifference || key == "vs_first") }
            } else if let list = value as? [Any] {
                if !underDifference, list.count == 2, let low = list[0] as? Double, let high = list[1] as? Double {
                    #expect((high - low) / 2 <= 0.05 + 1e-6)
                    checked += 1
                } else {
                    for inner in list { visit(inner, underDifference: underDifference) }
                }
            }
        }
        visit(json["policies"] as Any, underDifference: false)
        #expect(checked > 20)
    }

    @Test func conflictsAndBadValuesAreUsageErrors() async throws {
        let both = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--precision", "1pp", "--users", "10",
        ])
        #expect(both.status == 2)
        #expect(both.stderr.contains("give --users or --precision, not both"))
        let bad = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--precision", "0.5",
        ])
        #expect(bad.stderr.contains("--precision takes percentage points from 0.01pp to 50pp, e.g. --precision 0.5pp; got '0.5'"))
    }
}
