import Foundation
import PermitTestSupport
import Testing

/// `permit simulate --sweep` through the built binary: the table, the JSON, and bad input.
@Suite("permit simulate --sweep")
struct SweepCommandTests {
    static func run(_ extra: [String]) async throws -> ProcessResult {
        let file = try SimulateCommandTests.temporaryFile("knob.lua", KnobPolicy.source)
        return try await SimulateCommandTests.permit(
            [
                "simulate", file.path, "--model", "examples/models/default.yaml",
                "--users", "150", "--days", "2", "--seed", "4",
            ] + extra)
    }

    @Test func theBinaryFindsTheKnownOptimum() async throws {
        let sweep = [
            "--sweep", "ask=false,true", "--sweep", "quiet=false,true", "--objective", "reach_day_2",
            "--constraint", "uninstalls<=50%",
        ]
        let json = try await Self.run(sweep + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let result = try #require(object["sweep"] as? [String: Any])
        #expect((result["runs"] as? [Any])?.count == 4)
        let best = try #require(result["best"] as? [String: Any])
        #expect(best["params"] as? [String: Bool] == ["ask": true, "quiet": false])
        #expect(best["runner_up"] as? [String: Bool] != nil)
        #expect(best["verdict"] as? String == "uncorrected: excludes 0")

        let page = try SimulateCommandTests.temporaryFile("sweep.html")
        let text = try await Self.run(sweep + ["--report", page.path])
        #expect(text.status == 0, "\(text.stderr)")
        // The report: one chart per figure of the table (reach, quiet, uninstalls), the best ringed on each.
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<svg ").count - 1 == 3)
        #expect(html.components(separatedBy: "<circle class=\"best\"").count - 1 == 3)
        #expect(text.stdout.contains("report written to \(page.path)"))
        #expect(text.stdout.contains("objective reach_day_2 subject to uninstalls<=50%: best (*) ask=true quiet=false"))
        #expect(text.stdout.contains("vs runner-up ask="))
        let marked = text.stdout.split(separator: "\n").filter { $0.hasSuffix("*") }
        #expect(marked.count == 1 && marked[0].hasPrefix("true "), "\(text.stdout)")
    }

    @Test func listValuesSplitAtTopLevelCommas() async throws {
        let polite = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--users", "50", "--days", "1",
            "--sweep", "settings_backoff_days=[1,7,30],[3,7,30]", "--format", "json",
        ])
        #expect(polite.status == 0, "\(polite.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(polite.stdout.utf8)) as? [String: Any])
        let runs = try #require((object["sweep"] as? [String: Any])?["runs"] as? [[String: Any]])
        #expect(runs.compactMap { ($0["params"] as? [String: [Int]])?["settings_backoff_days"] } == [[1, 7, 30], [3, 7, 30]])
    }

    @Test func badSweepInputExitsTwoNamingTheFlag() async throws {
        func failure(_ extra: [String]) async throws -> String {
            let result = try await Self.run(extra)
            #expect(result.status == 2, "\(extra): \(result.stdout)")
            return result.stderr
        }
        #expect(
            try await failure(["--sweep", "asc=true,false"]).contains("--sweep asc: knob declares no such param; did you mean \"ask\"?"))
        #expect(try await failure(["--sweep", "ask=[1,2"]).contains("--sweep ask: [1,2 starts like a JSON list"))
        #expect(try await failure(["--sweep", "ask=true,,false"]).contains("--sweep ask=true,,false: an empty value"))
        #expect(try await failure(["--sweep", "ask=true", "--objective", "reach_day_9"]).contains("--objective reach_day_9: not a metric"))
        #expect(try await failure(["--sweep", "ask=true", "--objective", "rech_day_2"]).contains("did you mean \"reach_day_2\"?"))
        #expect(
            try await failure(["--sweep", "ask=true", "--constraint", "uninstalls<2%"]).contains(
                "--constraint uninstalls<2%: write metric<=N%"))
        #expect(try await failure(["--sweep", "ask=true", "--constraint", "uninstals<=2%"]).contains("--constraint uninstals"))
        #expect(try await failure(["--sweep", "ask=true", "--sweep", "ask=false"]).contains("swept twice"))
        #expect(
            try await failure([
                "--sweep", "ask=true", "--sweep",
                "quiet=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65",
            ])
            .contains("65 combinations; a sweep runs at most 64"))
        #expect(try await failure(["--objective", "reach_day_2"]).contains("add --sweep"))
        let two = try await SimulateCommandTests.permit([
            "simulate", "policies/polite", "policies/lessons", "--model",
            "examples/models/default.yaml", "--sweep", "max_soft_prompts=1,2",
        ])
        #expect(two.status == 2)
        #expect(two.stderr.contains("give exactly one policy, not 2"))
    }
}
