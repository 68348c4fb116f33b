import Foundation
import PermitCLITestSupport
import PermitTestSupport
import Testing

/// `permit simulate` end to end: exit codes, determinism across workers, the report file.
@Suite("permit simulate")
struct SimulateCommandTests {
    /// The built `permit` next to this test bundle.
    static var executable: URL { builtExecutable(named: "permit") }

    /// Runs `permit ARGUMENTS` in this process from the repository root (`runPermitInProcess`).
    static func permit(_ arguments: [String]) async throws -> ProcessResult {
        await runPermitInProcess(arguments, in: Repository.root)
    }

    /// Launches the built `permit` from the repository root (see `runProcess`): only for what
    /// needs the real process (here, stderr that really is not a terminal).
    static func launch(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcess(executable, arguments, in: Repository.root)
    }

    static func temporaryFile(_ name: String, _ contents: String? = nil) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("permit-simulate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        if let contents { try contents.write(to: url, atomically: true, encoding: .utf8) }
        return url
    }

    /// The one-worker run launches the binary: no progress bar is asked of `isatty` on the real
    /// stderr (a pipe here), which an in-process console only answers by construction.
    @Test func jsonIsTheSameWhateverTheWorkersAndTheReportIsWritten() async throws {
        let report = try Self.temporaryFile("report.html")
        let common = [
            "simulate", "policies/polite", "policies/legacy-aware", "--model", "examples/models/default.yaml",
            "--users", "300", "--days", "2", "--seed", "11", "--format", "json",
        ]
        let one = try await Self.launch(common + ["--workers", "1", "--report", report.path])
        let three = try await Self.permit(common + ["--workers", "3"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout == three.stdout)
        #expect(one.stderr.isEmpty, "no progress bar when stderr is not a terminal")
        #expect(one.stdout.contains("\"name\" : \"legacy-aware\""))
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(html.contains("data-policy=\"polite\"") && html.contains("data-policy=\"legacy-aware\""))
    }

    @Test func textComparesSideBySide() async throws {
        let result = try await Self.permit([
            "simulate", "policies/polite", "policies/provisional-first", "--model",
            "examples/models/default.yaml", "--users", "100", "--days", "2",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("100 users × 2 days, model default, seed 1"))
        #expect(result.stdout.contains("can receive alerts, day 2"))
        #expect(result.stdout.contains("intervals cover simulation noise for this model"))
        #expect(result.stdout.contains("Holm-corrected over 2 comparisons"))
        #expect(!result.stdout.contains("every pair"))
    }

    /// `--all-pairs` adds the table of every pair (text) and `pairs` (JSON), and the headline
    /// family grows to every pair on every reported day: 3 pairs × days 1 and 2.
    @Test func allPairsComparesEveryPairAndCorrectsOverThem() async throws {
        let common = [
            "simulate", "policies/polite", "policies/provisional-first", "policies/reminders", "--model",
            "examples/models/default.yaml", "--users", "100", "--days", "2", "--all-pairs",
        ]
        let text = try await Self.permit(common)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("every pair (paired, 95% intervals, verdicts Holm-corrected over 6)"))
        #expect(text.stdout.contains("reminders − provisional-first"))
        let json = try await Self.permit(common + ["--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        #expect(
            pairs.map { "\($0["policy"]!)-\($0["from"]!)" } == [
                "provisional-first-polite", "reminders-polite", "reminders-provisional-first",
            ])
        let intervals = try #require(object["intervals"] as? [String: Any])
        #expect((intervals["family_wise"] as? [String: Any])?["comparisons"] as? Int == 6)
        #expect((intervals["cover"] as? String)?.hasPrefix("simulation noise for this model") == true)
        let sweep = try await Self.permit([
            "simulate", "policies/polite", "--model", "examples/models/default.yaml", "--sweep", "max_soft_prompts=1,2",
            "--all-pairs",
        ])
        #expect(sweep.status == 2)
        #expect(sweep.stderr.contains("--all-pairs compares the policies of a run"))
    }

    @Test func aPolicyBlindToTheModelIsWarnedAboutOnStderrAndInTheReport() async throws {
        let policy = try Self.temporaryFile(
            "camera.lua",
            """
            return { name = "camera-only", decide = function(ctx)
              if ctx.event.feature == "camera" then return { action = "request_permission", options = { "alert" } } end
            end }
            """)
        let report = try Self.temporaryFile("report.html")
        let result = try await Self.permit([
            "simulate", policy.path, "--model", "examples/models/default.yaml", "--users", "50",
            "--days", "2", "--report", report.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("permit: warning: camera-only: names feature \"camera\" that the model never opens"))
        #expect(result.stderr.contains("permit: warning: camera-only: prompted nobody"))
        #expect(result.stdout.contains("warning: camera-only: names feature \"camera\""))
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(html.contains("<li>warning: camera-only: names feature &quot;camera&quot;"))
    }

    @Test func badInputExitsTwo() async throws {
        let model = try Self.temporaryFile("bad.yaml", "os_versions: { \"17.5\": 1 }\nsesions_per_day: 1\n")
        let bad = try await Self.permit(["simulate", "policies/polite", "--model", model.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bad.yaml:2:1: unknown key \"sesions_per_day\"; did you mean \"sessions_per_day\"?"))

        let missingPolicy = try await Self.permit(["simulate", "policies/nope", "--model", "examples/models/default.yaml"])
        #expect(missingPolicy.status == 2)
        #expect(missingPolicy.stderr.contains("policies/nope: no such file or directory"))

        let broken = try Self.temporaryFile("broken.lua", "return { name = \"broken\" }")
        let badPolicy = try await Self.permit(["simulate", broken.path, "--model", "examples/models/default.yaml"])
        #expect(badPolicy.status == 2)
        #expect(badPolicy.stderr.contains("policy.decide: missing"))
    }

    @Test func helpHasExamples() async throws {
        let help = try await Self.permit(["simulate", "--help"])
        #expect(help.stdout.contains("permit simulate policies/polite --model examples/models/default.yaml"))
        #expect(help.stdout.contains("--report"))
    }
}
