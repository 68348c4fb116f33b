import Foundation
import Testing

/// The `permit` executable end to end: exit codes, formats, help.
@Suite struct CLITests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `permit` next to this test bundle.
    static var executable: URL {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: directory.appendingPathComponent("permit").path) {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("permit")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func permit(_ arguments: [String], in directory: URL = repository, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func testExitCodesFollowTheSpec() throws {
        let tree = Tree()
        tree.write("polite/policy.lua", try String(contentsOf: Self.repository.appendingPathComponent("policies/polite/policy.lua"), encoding: .utf8))
        tree.write("polite/tests/pass.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: soft_prompt }\n  - { answer: decline }\n")
        let pass = try Self.permit(["test", tree.path()])
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.hasSuffix("1 passed, 0 failed\n"))
        #expect(!pass.stdout.contains("\u{1B}["), "no colour when not on a terminal")

        tree.write("polite/tests/fail.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: none }\n  - { answer: decline }\n")
        let fail = try Self.permit(["test", tree.path()])
        #expect(fail.status == 1)
        #expect(fail.stdout.contains("✗ expected none, got soft_prompt (reason: a feature that needs notifications opened)"))
        #expect(fail.stdout.hasSuffix("1 passed, 1 failed\n"))

        let empty = Tree()
        empty.write("README.md", "nothing here")
        let none = try Self.permit(["test", empty.path()])
        #expect(none.status == 2)
        #expect(none.stderr.contains("no scenarios found under \(empty.path())"))

        let missing = try Self.permit(["test", "/nonexistent/permit"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/permit: no such file or directory"))
    }

    @Test func testFormats() throws {
        let json = try Self.permit(["test", "policies/polite", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["failed"] as? Int) == 0)
        #expect(((object?["passed"] as? Int) ?? 0) > 0)
        let junit = try Self.permit(["test", "policies/polite", "--format", "junit"])
        #expect(junit.stdout.hasPrefix("<?xml"))
        let filtered = try Self.permit(["test", "policies", "--filter", "zzz-no-such-scenario"])
        #expect(filtered.status == 2)
        #expect(filtered.stderr.contains("matching \"zzz-no-such-scenario\""))
    }

    @Test func runPrintsTheTimeline() throws {
        let run = try Self.permit(["run", "policies/polite", "examples/walkthrough.yaml"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("unknown → not_determined"))
        #expect(run.stdout.contains("[system dialog shown]"))
        let json = try Self.permit(["run", "policies/polite", "examples/walkthrough.yaml", "--format", "json"])
        #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])?.count == 1)
        let bad = try Self.permit(["run", "policies/polite", "/nonexistent.yaml"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("/nonexistent.yaml:1:1: cannot read the file"))
    }

    @Test func decideAndCheck() throws {
        // Denied long ago: the polite backoff has passed.
        let history = Tree()
        history.write("ledger.json", #"{"last_status": "denied", "denied_at": 0, "launches": 9}"#)
        let decide = try Self.permit([
            "decide", "policies/polite", "--status", "denied", "--event", "feature_opened", "--feature", "reminders",
            "--os", "15.3", "--history", history.path("ledger.json"), "--format", "json",
        ])
        #expect(decide.status == 0, "\(decide.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(decide.stdout.utf8)) as? [String: Any]
        let decision = object?["decision"] as? [String: Any]
        #expect(decision?["action"] as? String == "settings_prompt")
        #expect(decision?["deep_link"] as? String == "app_settings")
        let badStatus = try Self.permit(["decide", "policies/polite", "--status", "denid", "--event", "app_launch"])
        #expect(badStatus.status == 2)
        #expect(badStatus.stderr.contains("did you mean \"denied\"?"))
        let badParam = try Self.permit(["decide", "policies/polite", "--status", "denied", "--event", "app_launch", "--param", "max_soft_prompt=2"])
        #expect(badParam.status == 2)
        #expect(badParam.stderr.contains("did you mean \"max_soft_prompts\"?"))

        let tree = Tree()
        tree.write("broken.lua", "return { name = 'broken', decide = function(ctx) return nil end, plan = 1 }")
        let check = try Self.permit(["check", "policies/polite", tree.path("broken.lua"), "/nonexistent.lua"])
        #expect(check.status == 2)
        #expect(check.stdout.contains("ok    policies/polite/policy.lua"))
        #expect(check.stdout.contains("policy.plan: not a field of a policy"))
        #expect(check.stderr.contains("/nonexistent.lua: no such file or directory"))
    }

    @Test func helpAndVersion() throws {
        for verb in ["run", "test", "decide", "check", "bench"] {
            let help = try Self.permit([verb, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example"), "\(verb) --help has no example")
        }
        #expect(try Self.permit(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty == false)
    }
}
