import Foundation
import PermitTestSupport
import Testing

import enum PermitInput.TerminalText

@testable import PermitCore
@testable import PermitScenario

/// Files the CLI reads may never crash it, be read as something else in silence, or forge its
/// output; output paths that name a device or FIFO are never replaced. Through the real verbs.
@Suite struct HostileInputCLITests {
    static func permit(_ arguments: [String], in directory: URL = CLITests.repository) async throws -> ProcessResult {
        try await CLITests.permit(arguments, in: directory)
    }

    // MARK: Ledgers

    /// A ledger at Int64.max used to trap on the next count (SIGILL): now the count stays put.
    @Test func historyAtTheMaximumIsServed() async throws {
        let tree = Tree()
        tree.write(
            "policy.lua",
            #"return { name = "count", decide = function(ctx) return { action = "none", reason = "launches " .. ctx.history.launches } end }"#
        )
        tree.write("ledger.json", #"{"schema": 1, "ledger": {"launches": 9223372036854775807, "foregrounds": 9223372036854775807}}"#)
        let result = try await Self.permit([
            "decide", tree.path("policy.lua"), "--status", "not_determined", "--event", "app_launch",
            "--history", tree.path("ledger.json"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("reason: launches 9223372036854775807"))
    }

    /// A key given twice is not read as either value: `--history` names the file, the line of
    /// the second and the field, bare or in a store's envelope.
    @Test(arguments: [
        ("{\"launches\": 3,\n \"launches\": 900}", ":2: launches is given twice (first at line 1)"),
        (
            "{\"schema\": 1, \"ledger\": {\n  \"soft_prompt\": {\"shown\": 1,\n  \"shown\": 0}}}",
            ":3: ledger.soft_prompt.shown is given twice (first at line 2)"
        ),
    ])
    func aLedgerWithADuplicateKeyIsRefused(_ ledger: String, _ message: String) async throws {
        let tree = Tree()
        tree.write("ledger.json", ledger)
        let result = try await Self.permit([
            "decide", "policies/polite", "--status", "not_determined", "--event", "app_launch", "--history", tree.path("ledger.json"),
        ])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("--history \(tree.path("ledger.json"))\(message)"), "\(result.stderr)")
    }

    /// `--param ratio=1.0e400` would reach the policy as infinity: refused, naming the param.
    @Test func aParamThatOverflowsIsRefused() async throws {
        let tree = Tree()
        tree.write(
            "policy.lua",
            #"return { name = "ratio", params = { ratio = 0.5 }, decide = function(ctx) return { action = "none", reason = tostring(ctx.params.ratio) } end }"#
        )
        let result = try await Self.permit([
            "decide", tree.path("policy.lua"), "--status", "not_determined", "--event", "app_launch", "--param", "ratio=1.0e400",
        ])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("--param ratio: 1.0e400 is beyond the largest number"), "\(result.stderr)")
    }

    /// A scenario's `initial.ledger` at the maximum, through every event that counts.
    @Test func initialLedgerAtTheMaximumIsPlayed() async throws {
        let max = "9223372036854775807"
        let tree = Tree()
        tree.write(
            "pack/policy.lua",
            #"return { name = "count", decide = function(ctx) return { action = "none", reason = "launches " .. ctx.history.launches } end }"#
        )
        tree.write(
            "pack/tests/full.yaml",
            """
            name: full
            device: { os: "16.4" }
            initial:
              ledger:
                launches: \(max)
                foregrounds: \(max)
                soft_prompt: { shown: \(max), accepted: \(max), declined: \(max), dismissed: \(max) }
                settings_prompt: { shown: \(max), opened: \(max), cancelled: \(max) }
                features: { reminders: { opened: \(max) } }
            steps:
              - { event: app_launch, expect: { action: none, reason: "launches \(max)" }, expect_ledger: { launches: \(max) } }
              - { event: app_foreground, expect_ledger: { foregrounds: \(max) } }
              - { event: feature_opened, feature: reminders, expect_ledger: { features.reminders.opened: \(max) } }
            """)
        let result = try await Self.permit(["test", tree.path("pack")])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"))
    }

    /// Values a ledger's JSON types hold but no Permit writes: exit 2, the file, its line, the
    /// field and what to do; never an empty ledger in silence.
    @Test func aBadHistoryIsRefusedNamingFileLineAndField() async throws {
        let cases: [(String, String)] = [
            (
                "{\"schema\": 1,\n \"ledger\": {\n  \"launches\": 1.5}}",
                "ledger.json:3: it is damaged (ledger.launches: 1.5 is not a whole number"
            ),
            ("{\n\"launches\": 1e300}", "ledger.json:2: launches: 1e+300 is not a whole number"),
            ("{\"schema\": 99, \"ledger\": {\"launches\": 3}}", "ledger.json:1: it was written by a newer Permit (schema 99"),
            ("{\n\"soft_prompt\": {\n\"shown\": -3}}", "ledger.json:3: soft_prompt.shown is -3; counters are never negative"),
            ("{\n\"lanches\": 3}", "ledger.json:2: unknown ledger field \"lanches\"; did you mean \"launches\"?"),
            ("[1, 2]", "ledger.json: not a JSON object"),
        ]
        for (json, message) in cases {
            let tree = Tree()
            tree.write("ledger.json", json)
            let result = try await Self.permit([
                "decide", "policies/polite", "--status", "not_determined", "--event", "app_launch",
                "--history", tree.path("ledger.json"),
            ])
            #expect(result.status == 2, "\(json)")
            #expect(result.stderr.contains("--history \(tree.path("ledger.json")):") || result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(json): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    // MARK: Error text

    @Test func aMegabyteErrorIsCutInEveryOutput() async throws {
        let tree = Tree()
        tree.write("policy.lua", #"return { name = "loud", decide = function(ctx) error(("E"):rep(1e6)) end }"#)
        // A generous time limit: building the megabyte must end in the error, not in the limit,
        // however loaded the machine running the debug build is.
        let slack = ["--time-limit", "5000"]
        let text = try await Self.permit(
            ["decide", tree.path("policy.lua"), "--status", "not_determined", "--event", "app_launch"] + slack)
        #expect(text.stdout.utf8.count + text.stderr.utf8.count < 10_000)
        #expect(text.stderr.contains("bytes cut]"))
        let json = try await Self.permit(
            [
                "decide", tree.path("policy.lua"), "--status", "not_determined", "--event", "app_launch", "--format", "json",
            ] + slack)
        #expect(json.stdout.utf8.count < 10_000)
        #expect(json.stdout.contains("bytes cut]"))
    }

    // MARK: Terminal escapes

    static let hostile = "\u{1B}[2J\r\u{202E}"
    static let hostileEscaped = #"\u001B[2J\u000D\u202E"#

    /// A pack whose policy name, reason and trace, scenario name and feature name carry ESC, CR
    /// and U+202E (and a reason a newline).
    static func hostilePack() -> Tree {
        let tree = Tree()
        tree.write(
            "pack/policy.lua",
            """
            return {
              name = "evil\\27[2J\\r\\u{202E}",
              decide = function(ctx)
                print("trace\\27[2J\\r\\u{202E}")
                return { action = "none", reason = "why\\27[2J\\r\\u{202E}\\nPASS  forged.yaml" }
              end,
            }
            """)
        tree.write(
            "pack/tests/a.yaml",
            """
            name: "scenario\\e[2J\\r\\u202E"
            device: { os: "16.0" }
            steps:
              - { event: feature_opened, feature: "feat\\e[2J\\r\\u202E", expect: none }
            """)
        return tree
    }

    static func expectEscaped(_ result: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let all = result.stdout + result.stderr
        #expect(!all.unicodeScalars.contains { TerminalText.isSteering($0.value) }, "\(what): \(all)", sourceLocation: sourceLocation)
        #expect(all.contains(hostileEscaped), "\(what): \(all)", sourceLocation: sourceLocation)
    }

    @Test func everyVerbEscapesWhatThePolicyAndScenarioWrote() async throws {
        let tree = Self.hostilePack()
        let policy = tree.path("pack/policy.lua"), scenario = tree.path("pack/tests/a.yaml")
        let decide = try await Self.permit([
            "decide", policy, "--status", "not_determined", "--event", "feature_opened", "--feature", "feat" + Self.hostile,
        ])
        Self.expectEscaped(decide, "decide")
        #expect(decide.stdout.contains(#"reason: why\u001B[2J\u000D\u202E\u000APASS  forged.yaml"#), "\(decide.stdout)")
        #expect(decide.stdout.contains(#"trace: trace\u001B[2J\u000D\u202E"#))
        #expect(decide.stdout.contains(#"feat\u001B[2J\u000D\u202E"#))
        Self.expectEscaped(try await Self.permit(["run", policy, scenario]), "run")
        let test = try await Self.permit(["test", tree.path("pack"), "--verbose"])
        Self.expectEscaped(test, "test")
        #expect(test.stdout.contains(#"scenario\u001B[2J\u000D\u202E"#))
        #expect(!test.stdout.contains("\nPASS  forged.yaml"))
        let check = try await Self.permit(["check", tree.path("pack")])
        Self.expectEscaped(check, "check")
        #expect(check.stdout.contains(#"name evil\u001B[2J\u000D\u202E"#))
        // A policy error quoting the same text, and an argument quoted in an error.
        let badEvent = try await Self.permit(["decide", policy, "--status", "not_determined", "--event", "x" + Self.hostile])
        #expect(badEvent.status == 2)
        Self.expectEscaped(badEvent, "an unknown event")
    }

    /// JSON output stays JSON and holds the texts as they were.
    @Test func jsonOutputKeepsTheTextsExactly() async throws {
        let tree = Self.hostilePack()
        let decide = try await Self.permit([
            "decide", tree.path("pack/policy.lua"), "--status", "not_determined", "--event", "app_launch", "--format", "json",
        ])
        #expect(!decide.stdout.unicodeScalars.contains { TerminalText.isSteering($0.value) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(decide.stdout.utf8)) as? [String: Any])
        let decision = try #require(object["decision"] as? [String: Any])
        #expect(decision["reason"] as? String == "why" + Self.hostile + "\nPASS  forged.yaml")
        let test = try await Self.permit(["test", tree.path("pack"), "--format", "json"])
        #expect(!test.stdout.unicodeScalars.contains { TerminalText.isSteering($0.value) })
        #expect(test.stdout.contains(#"\u202E"#))
        _ = try JSONSerialization.jsonObject(with: Data(test.stdout.utf8))
    }

    // MARK: Output paths

    static func nodeType(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }

    /// A FIFO nobody reads is refused, not waited on and not replaced; one with a reader gets
    /// the file through it and stays a FIFO.
    @Test func aFIFOIsWrittenThroughNeverReplaced() async throws {
        let tree = Tree()
        tree.write("README", "scratch")
        let fifo = tree.path("coverage.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let unread = try await Self.permit([
            "test", "policies/polite/tests/app-clip.yaml", "--coverage-format", "lcov", "--coverage-output", fifo,
        ])
        #expect(unread.status == 2)
        #expect(unread.stderr.contains("\(fifo): cannot write (it is a FIFO that no process is reading)"))
        #expect(Self.nodeType(fifo) == S_IFIFO)

        // A reader holds the FIFO open (without waiting for a writer); the file goes through
        // the pipe's buffer to it once the command ends.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let read = try await Self.permit([
            "test", "policies/polite/tests/app-clip.yaml", "--coverage-format", "lcov", "--coverage-output", fifo,
        ])
        #expect(read.status == 0, "\(read.stderr)")
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = Foundation.read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).hasPrefix("TN:"))
        #expect(Self.nodeType(fifo) == S_IFIFO)
    }

    /// A character device reached through a symbolic link (a null device of our own, made
    /// when the tests run as root) is written through and stays a device.
    @Test func aCharacterDeviceThroughALinkStaysADevice() async throws {
        let tree = Tree()
        tree.write("README", "scratch")
        let device = tree.path("null"), link = tree.path("report.lcov")
        guard getuid() == 0, mknod(device, S_IFCHR | 0o666, Self.nullDevice) == 0 else { return }
        #expect(symlink(device, link) == 0)
        let result = try await Self.permit([
            "test", "policies/polite/tests/app-clip.yaml", "--coverage-format", "lcov", "--coverage-output", link,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.nodeType(device) == S_IFCHR)
        #expect(Self.nodeType(link) == S_IFLNK)
        // The bundle's writer renames: it refuses the device instead.
        let bundle = try await Self.permit(["bundle", "policies/polite", "--version", "1", "--out", link])
        #expect(bundle.status == 2)
        #expect(bundle.stderr.contains("names a device or FIFO"))
        #expect(Self.nodeType(device) == S_IFCHR)
    }

    /// The null device's number, 1:3 (`makedev` is a C macro Swift does not see).
    #if os(Linux)
    static let nullDevice = dev_t((1 << 8) | 3)
    #else
    static let nullDevice = dev_t((1 << 24) | 3)
    #endif

    /// A path with a newline would put a line of its own into every message that quotes it.
    @Test func anOutputPathWithANewlineIsRefused() async throws {
        let tree = Tree()
        tree.write("README", "scratch")
        let path = tree.path("a\nPASS")
        let result = try await Self.permit([
            "test", "policies/polite/tests/app-clip.yaml", "--coverage-format", "lcov", "--coverage-output", path,
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"a\u000APASS: cannot write (the path holds a control character"#), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: Outputs that name an input

    /// An output path that is one of the command's inputs (by file identity: the same path, a
    /// symbolic link, a hard link) is refused before anything is written, and the input is intact.
    @Test func anOutputThatNamesAnInputIsRefused() async throws {
        let tree = Tree()
        let polite = try String(contentsOf: CLITests.repository.appendingPathComponent("policies/polite/policy.lua"), encoding: .utf8)
        let model = try String(contentsOf: CLITests.repository.appendingPathComponent("examples/models/default.yaml"), encoding: .utf8)
        tree.write("pack/policy.lua", polite)
        tree.write("pack/tests/a.yaml", "device: { os: \"16.4\" }\nsteps:\n  - event: app_launch\n")
        tree.write("model.yaml", model)
        tree.write("records.jsonl", "")
        try FileManager.default.createSymbolicLink(atPath: tree.path("link.yaml"), withDestinationPath: tree.path("model.yaml"))
        try FileManager.default.linkItem(atPath: tree.path("pack/policy.lua"), toPath: tree.path("hard.lua"))
        let simulate = ["simulate", tree.path("pack"), "--model", tree.path("model.yaml"), "--users", "10", "--days", "1"]
        let cases: [(arguments: [String], message: String)] = [
            (
                simulate + ["--report", tree.path("pack/policy.lua")],
                "--report \(tree.path("pack/policy.lua")): cannot write (it is the command's input the policy"
            ),
            (simulate + ["--report", tree.path("hard.lua")], "cannot write (it is the command's input the policy"),
            (
                simulate + ["--records", tree.path("link.yaml")],
                "--records \(tree.path("link.yaml")): cannot write (it is the command's input --model"
            ),
            (
                ["bundle", tree.path("pack"), "--version", "1", "--out", tree.path("pack/policy.lua")],
                "--out \(tree.path("pack/policy.lua")): cannot write (it is the command's input the pack's policy.lua"
            ),
            (
                ["bundle", tree.path("pack"), "--version", "1", "--out", tree.path("pack/tests/a.yaml")],
                "cannot write (it is the command's input the pack's a.yaml"
            ),
            (["fit", tree.path("records.jsonl"), "--out", tree.path("records.jsonl")], "cannot write (it is the command's input records"),
            (
                ["fit", tree.path("records.jsonl"), "--base", tree.path("model.yaml"), "--out", tree.path("link.yaml")],
                "cannot write (it is the command's input --base"
            ),
        ]
        for (arguments, message) in cases {
            let result = try await Self.permit(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try String(contentsOfFile: tree.path("pack/policy.lua"), encoding: .utf8) == polite)
        #expect(try String(contentsOfFile: tree.path("model.yaml"), encoding: .utf8) == model)
        #expect(try String(contentsOfFile: tree.path("records.jsonl"), encoding: .utf8) == "")
        // A new file beside the inputs is fine.
        let fine = try await Self.permit(simulate + ["--report", tree.path("report.html")])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
