import Foundation
import PermitCLITestSupport
import PermitDelivery
import PermitTestSupport
import Testing

@testable import PermitLua
@testable import PermitScenario

/// The `permit` verbs end to end: exit codes, formats, help. Most run in this process
/// (`permit`); the few that must see the real process launch the built binary (`launch`).
@Suite struct CLITests {
    static let repository = Repository.root

    /// The built `permit` next to this test bundle.
    static var executable: URL { builtExecutable(named: "permit") }

    /// Runs `permit ARGUMENTS` in this process with `directory` as its working directory
    /// (`runPermitInProcess`): the verbs' own code, answering as the binary would.
    static func permit(
        _ arguments: [String], in directory: URL = repository, environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        await runPermitInProcess(arguments, in: directory, environment: environment)
    }

    /// Launches the built `permit`; both outputs are drained at once (see `runProcess`).
    ///
    /// Only for what an in-process run cannot show: the status the process really exits
    /// with, output through the real file descriptors, terminals and signals. Each test that
    /// calls it says why.
    static func launch(
        _ arguments: [String], in directory: URL = repository, environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        try await runProcess(executable, arguments, in: directory, environment: environment)
    }

    /// A child that fills its stderr pipe before writing stdout: a runner that read stdout to
    /// its end first would wait forever (the child blocked on the full stderr pipe).
    @Test func theRunnerDrainsBothPipesAtOnce() async throws {
        let script = "head -c 1000000 /dev/zero | tr '\\0' e >&2; echo done"
        let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], limit: 60)
        #expect(!result.timedOut)
        #expect(result.status == 0)
        #expect(result.stdout == "done\n")
        #expect(result.stderr.utf8.count == 1_000_000)
    }

    /// Launches the binary for one passing and one failing run: the process's own exit
    /// status (0, 1) and real stdout, not a colour-free console by construction.
    @Test func testExitCodesFollowTheSpec() async throws {
        let tree = Tree()
        tree.write(
            "polite/policy.lua",
            try String(contentsOf: Self.repository.appendingPathComponent("policies/polite/policy.lua"), encoding: .utf8))
        tree.write(
            "polite/tests/pass.yaml",
            "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: soft_prompt }\n  - { answer: decline }\n"
        )
        let pass = try await Self.launch(["test", tree.path()])
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"))
        #expect(!pass.stdout.contains("\u{1B}["), "no colour when not on a terminal")

        tree.write(
            "polite/tests/fail.yaml",
            "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: none }\n  - { answer: decline }\n")
        let fail = try await Self.launch(["test", tree.path()])
        #expect(fail.status == 1)
        #expect(fail.stdout.contains("✗ expected none, got soft_prompt (reason: a feature that needs notifications opened)"))
        #expect(fail.stdout.hasSuffix("1 passed, 1 failed, 0 skipped\n"))

        let empty = Tree()
        empty.write("README.md", "nothing here")
        let none = try await Self.permit(["test", empty.path()])
        #expect(none.status == 2)
        #expect(none.stderr.contains("no scenarios found under \(empty.path())"))

        let missing = try await Self.permit(["test", "/nonexistent/permit"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/permit: no such file or directory"))
    }

    /// The formats, on one scenario: the packs themselves run in `make test`, and this test is
    /// about the output, not about running polite's scenarios again.
    @Test func testFormats() async throws {
        let json = try await Self.permit(["test", "policies/polite/tests/app-clip.yaml", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["failed"] as? Int) == 0)
        #expect(((object?["passed"] as? Int) ?? 0) > 0)
        let junit = try await Self.permit(["test", "policies/polite/tests/app-clip.yaml", "--format", "junit"])
        #expect(junit.stdout.hasPrefix("<?xml"))
        let filtered = try await Self.permit(["test", "policies/polite", "--filter", "zzz-no-such-scenario"])
        #expect(filtered.status == 2)
        #expect(filtered.stderr.contains("matching \"zzz-no-such-scenario\""))
    }

    @Test func runPrintsTheTimeline() async throws {
        let run = try await Self.permit(["run", "policies/polite", "examples/walkthrough.yaml"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("unknown → not_determined"))
        #expect(run.stdout.contains("[system dialog shown]"))
        let json = try await Self.permit(["run", "policies/polite", "examples/walkthrough.yaml", "--format", "json"])
        #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])?.count == 1)
        let bad = try await Self.permit(["run", "policies/polite", "/nonexistent.yaml"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("/nonexistent.yaml:1:1: cannot read the file"))
    }

    @Test func decideAndCheck() async throws {
        // Denied long ago: the polite backoff has passed.
        let history = Tree()
        history.write("ledger.json", #"{"last_status": "denied", "denied_at": 0, "launches": 9}"#)
        let decide = try await Self.permit([
            "decide", "policies/polite", "--status", "denied", "--event", "feature_opened", "--feature", "reminders",
            "--os", "15.3", "--history", history.path("ledger.json"), "--format", "json",
        ])
        #expect(decide.status == 0, "\(decide.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(decide.stdout.utf8)) as? [String: Any]
        let decision = object?["decision"] as? [String: Any]
        #expect(decision?["action"] as? String == "settings_prompt")
        #expect(decision?["deep_link"] as? String == "app_settings")
        let badStatus = try await Self.permit(["decide", "policies/polite", "--status", "denid", "--event", "app_launch"])
        #expect(badStatus.status == 2)
        #expect(badStatus.stderr.contains("did you mean \"denied\"?"))
        let badParam = try await Self.permit([
            "decide", "policies/polite", "--status", "denied", "--event", "app_launch", "--param", "max_soft_prompt=2",
        ])
        #expect(badParam.status == 2)
        #expect(badParam.stderr.contains("did you mean \"max_soft_prompts\"?"))

        let tree = Tree()
        tree.write("broken.lua", "return { name = 'broken', decide = function(ctx) return nil end, plan = 1 }")
        let check = try await Self.permit(["check", "policies/polite", tree.path("broken.lua"), "/nonexistent.lua"])
        #expect(check.status == 2)
        #expect(check.stdout.contains("ok    policies/polite/policy.lua"))
        #expect(check.stdout.contains("policy.plan: not a field of a policy"))
        #expect(check.stderr.contains("/nonexistent.lua: no such file or directory"))
    }

    /// `test --help` and `--version` launch the binary: they are what a user types first, and
    /// ArgumentParser prints them outside any command (a clean exit, on the real stdout,
    /// wrapped for the real pipe). The other verbs' help is the same path, in-process.
    @Test func helpAndVersion() async throws {
        for verb in ["run", "test", "decide", "check", "bench"] {
            let help = verb == "test" ? try await Self.launch([verb, "--help"]) : try await Self.permit([verb, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example"), "\(verb) --help has no example")
        }
        // The engine's version, the one bundles are checked against (`min_engine`).
        #expect(try await Self.launch(["--version"]).stdout == "\(EngineVersion.current)\n")
    }
}

@Suite struct BundleCLITests {
    @Test func keygenBundleSignVerifyAndTamper() async throws {
        let tree = Tree()
        tree.write("README.md", "scratch")
        let keys = tree.path("release")
        let keygen = try await CLITests.permit(["keygen", "--out", keys])
        #expect(keygen.status == 0, "\(keygen.stderr)")
        #expect(FileManager.default.fileExists(atPath: keys + ".key") && FileManager.default.fileExists(atPath: keys + ".pub"))
        #expect(try await CLITests.permit(["keygen", "--out", keys]).status != 0, "keygen must not overwrite keys")

        let bundle = tree.path("polite-7.permitbundle")
        let made = try await CLITests.permit(["bundle", "policies/polite", "--version", "7", "--out", bundle])
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        let unsigned = try await CLITests.permit(["verify", bundle, "--public-key", keys + ".pub"])
        #expect(unsigned.status == 2)
        #expect((unsigned.stdout + unsigned.stderr).contains("unsigned"))

        #expect(try await CLITests.permit(["sign", bundle, "--key", keys + ".key"]).status == 0)
        let genuine = try await CLITests.permit(["verify", bundle, "--public-key", keys + ".pub"])
        #expect(genuine.status == 0, "\(genuine.stdout)\(genuine.stderr)")

        // One flipped byte in the middle of the file.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: bundle))
        let tampered = try await CLITests.permit(["verify", bundle, "--public-key", keys + ".pub"])
        #expect(tampered.status == 2)

        // A pack whose tests fail is not bundled.
        tree.write("bad/policy.lua", "return { name = 'bad', decide = function(ctx) return nil end }")
        tree.write("bad/tests/a.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: x, expect: soft_prompt }\n")
        let refused = try await CLITests.permit(["bundle", tree.path("bad"), "--version", "1", "--out", tree.path("bad.permitbundle")])
        #expect(refused.status != 0)
        #expect(!FileManager.default.fileExists(atPath: tree.path("bad.permitbundle")))
    }
}

/// The guide's examples must keep working: its policy loads in the sandbox and answers as
/// described, its scenario parses.
@Suite struct GuideExampleTests {
    static func codeBlocks(_ language: String) throws -> [String] {
        let guide = try String(contentsOf: CLITests.repository.appendingPathComponent("docs/guide.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [String]?
        for line in guide.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(String(line))
            }
        }
        return blocks
    }

    @Test func theGuidesPolicyAndScenarioWork() async throws {
        let lua = try #require(try Self.codeBlocks("lua").first)
        let policy = try LuaPolicy(source: lua, chunkName: "guide.lua")
        #expect(policy.name == "polite" && policy.plansReminders)
        // The first story (a block with steps); the guide's other YAML blocks are copy files and models.
        let yaml = try #require(try Self.codeBlocks("yaml").first { $0.contains("steps:") })
        let scenario = try ScenarioParser.parse(yaml, file: "guide.yaml")
        #expect(scenario.steps.count == 8)
        let result = try await ScenarioRunner(policy: policy).run(scenario)
        #expect(result.steps.count == 8)
        let failures = result.steps.flatMap(\.failures)
        #expect(failures.isEmpty, "\(failures)")
        #expect(result.passed)
    }

    /// The matrix story and the steps file the guide shows are the reminders pack's own files,
    /// so the output printed under them is what `permit test` prints for them.
    @Test func theGuidesMatrixStoryIsTheShippedOne() async throws {
        let blocks = try Self.codeBlocks("yaml")
        let tests = CLITests.repository.appendingPathComponent("policies/reminders/tests")
        for (start, file) in [
            ("name: primer, allowed", "primer-allow.yaml"), ("# policies/reminders/tests/common/", "common/primer-allowed.steps.yaml"),
        ] {
            let block = try #require(blocks.first { $0.hasPrefix(start) }, "the guide shows \(file)")
            let shipped = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            let body = block.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
            #expect(shipped.contains(body), "docs/guide.md's copy of \(file) differs from the file")
        }
        let run = try await CLITests.permit(["test", "policies/reminders/tests/primer-allow.yaml"])
        #expect(run.status == 0)
        #expect(
            run.stdout.contains(
                "PASS  policies/reminders/tests/primer-allow.yaml  primer, allowed, nine reminders, topped up [os=9.3, locale=zh-Hans] (8 steps)"
            ))
    }
}

/// What `permit keygen`, `permit sign` and `permit bundle` do on the disk and at the gate.
@Suite struct BundleCLIHardeningTests {
    static let strace = URL(fileURLWithPath: "/usr/bin/strace")

    /// Runs the built `permit` under strace (launched: the system calls of the real process are
    /// the point) and returns the trace.
    static func traced(_ arguments: [String], in tree: Tree) async throws -> (ProcessResult, [String]) {
        let log = tree.path("strace.log")
        let result = try await runProcess(
            strace,
            [
                "-f", "-o", log, "-e",
                "trace=open,openat,creat,chmod,fchmod,fchmodat,fsync,fdatasync,rename,renameat,renameat2,link,linkat",
                CLITests.executable.path,
            ] + arguments, in: CLITests.repository)
        let trace = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        return (result, trace)
    }

    /// The file descriptor an `openat(...) = N` line returns.
    static func descriptor(_ line: String) -> String? {
        line.range(of: " = ").map { String(line[$0.upperBound...].prefix { $0.isNumber }) }
    }

    /// The private key is never readable by anyone else: the only file created for it is made
    /// with O_CREAT|O_EXCL and mode 0600 (no chmod afterwards), flushed before it takes the
    /// key's name, and the directory is flushed after. The directory is 0755, as a home is.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: strace.path), "needs strace"))
    func keygenCreatesThePrivateKey0600AndFlushesIt() async throws {
        let tree = Tree()
        let keys = tree.path("keys")
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let (result, trace) = try await Self.traced(["keygen", "--out", keys + "/release"], in: tree)
        #expect(result.status == 0, "\(result.stderr)")
        let inKeys = trace.filter { $0.contains(keys + "/") }
        let creations = inKeys.filter { $0.contains("O_CREAT") && $0.contains("release.key") }
        #expect(creations.count == 1, "\(inKeys)")
        let creation = try #require(creations.first)
        #expect(creation.contains("O_EXCL") && creation.hasSuffix(", 0600) = \(Self.descriptor(creation) ?? "?")"), "\(creation)")
        // Nothing in the directory is created readable and narrowed later.
        #expect(!inKeys.contains { $0.contains("chmod") && $0.contains("release.key") }, "\(inKeys)")
        let fd = try #require(Self.descriptor(creation))
        let pid = creation.prefix { $0 != " " }
        let afterCreation = trace.drop { $0 != creation }
        let flushed = afterCreation.firstIndex { $0.hasPrefix(pid) && ($0.contains("fsync(\(fd))") || $0.contains("fdatasync(\(fd))")) }
        let named = afterCreation.firstIndex { ($0.contains("link") || $0.contains("rename")) && $0.contains("release.key") }
        #expect(flushed != nil && named != nil && flushed! < named!, "the key is flushed before it takes its name: \(inKeys)")
        let directoryOpened = afterCreation.first { $0.contains("\"\(keys)\"") && $0.contains("O_DIRECTORY") }
        let directoryFD = try #require(directoryOpened.flatMap { Self.descriptor($0) }, "the directory is opened to be flushed: \(inKeys)")
        #expect(afterCreation.contains { $0.hasPrefix(pid) && $0.contains("fsync(\(directoryFD))") })
        let mode = try FileManager.default.attributesOfItem(atPath: keys + "/release.key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Every atomic write (here `permit sign --out`) flushes the file before the rename and the
    /// directory after it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: strace.path), "needs strace"))
    func atomicWritesFlushTheFileAndTheDirectory() async throws {
        let tree = Tree()
        tree.write("README.md", "scratch")
        #expect(try await CLITests.permit(["keygen", "--out", tree.path("k")]).status == 0)
        let unsigned = tree.path("p.permitbundle")
        #expect(try await CLITests.permit(["bundle", "policies/polite", "--version", "1", "--out", unsigned]).status == 0)
        let (result, trace) = try await Self.traced(
            ["sign", unsigned, "--key", tree.path("k.key"), "--out", tree.path("signed.permitbundle")], in: tree)
        #expect(result.status == 0, "\(result.stderr)")
        let creation = try #require(trace.first { $0.contains("O_CREAT") && $0.contains("signed.permitbundle") })
        let fd = try #require(Self.descriptor(creation))
        let after = trace.drop { $0 != creation }
        let flushed = after.firstIndex { $0.contains("fsync(\(fd))") }
        let renamed = after.firstIndex { $0.contains("rename") && $0.contains("signed.permitbundle") }
        #expect(flushed != nil && renamed != nil && flushed! < renamed!, "\(Array(after))")
        let directoryLine = after.first { $0.contains("\"\(tree.path())\"") && $0.contains("O_DIRECTORY") }
        let directory = try #require(directoryLine.flatMap { Self.descriptor($0) })
        #expect(after.contains { $0.contains("fsync(\(directory))") })
    }

    /// A pack test that names another policy would vouch for that policy, not for the one
    /// bundled: `permit bundle` refuses, naming the test file and line.
    @Test func bundleRefusesATestThatRunsAnotherPolicy() async throws {
        let tree = Tree()
        let polite = try String(contentsOf: CLITests.repository.appendingPathComponent("policies/polite/policy.lua"), encoding: .utf8)
        tree.write("good.lua", polite)
        tree.write("pack/policy.lua", "return { name = 'bad', decide = function(ctx) return nil end }")
        tree.write(
            "pack/tests/a.yaml",
            "name: borrowed\npolicy: ../../good.lua\ndevice: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: soft_prompt }\n"
        )
        let out = tree.path("x.permitbundle")
        let refused = try await CLITests.permit(["bundle", tree.path("pack"), "--version", "1", "--out", out])
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("tests/a.yaml:2:"), "\(refused.stderr)")
        #expect(
            refused.stderr.contains("policy: this test runs") && refused.stderr.contains("not the pack's policy.lua"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A pack test with a `policy_update` step runs the installed bundle's policy from that
    /// step on, so it cannot vouch for the pack's own: `permit bundle` refuses, naming the step.
    @Test func bundleRefusesATestThatInstallsABundle() async throws {
        let tree = Tree()
        tree.write("pack/policy.lua", "return { name = 'bad', decide = function(ctx) return nil end }")
        tree.write(
            "pack/tests/a.yaml",
            "name: swapped\ndevice: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect: none }\n"
                + "  - { policy_update: good.permitbundle }\n  - event: app_foreground\n"
        )
        let other = tree.path("pack/tests/good.permitbundle")
        #expect(try await CLITests.permit(["bundle", "policies/polite", "--version", "1", "--out", other]).status == 0)
        let out = tree.path("x.permitbundle")
        let refused = try await CLITests.permit(["bundle", tree.path("pack"), "--version", "1", "--out", out])
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("tests/a.yaml:5:"), "\(refused.stderr)")
        #expect(refused.stderr.contains("policy_update: this test installs"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Without --expires-in a bundle expires after 90 days.
    @Test func bundlesExpireAfter90DaysByDefault() async throws {
        let tree = Tree()
        tree.write("README.md", "scratch")
        let out = tree.path("p.permitbundle")
        let made = try await CLITests.permit(["bundle", "policies/polite", "--version", "1", "--out", out])
        #expect(made.status == 0, "\(made.stderr)")
        let bundle = try String(contentsOfFile: out, encoding: .utf8)
        let manifestText = try #require(bundle.split(separator: "\"").dropFirst(7).first)
        let manifest = try #require(Data(base64Encoded: String(manifestText)))
        let object = try #require(try JSONSerialization.jsonObject(with: manifest) as? [String: Any])
        let createdText = try #require(object["created_at"] as? String)
        let expiresText = try #require(object["expires_at"] as? String)
        let created = try #require(ISO8601DateFormatter().date(from: createdText))
        let expires = try #require(ISO8601DateFormatter().date(from: expiresText))
        #expect(expires.timeIntervalSince(created) == 90 * 86_400)
    }
}
