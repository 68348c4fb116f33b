import Foundation
import PermitTestSupport
import Testing

@testable import PermitScenario

/// The same through the `permit` verbs (in-process), as a user types it.
@Suite struct TestSelectionCLITests {
    static let policy = CLITests.repository.appendingPathComponent("policies/polite/policy.lua")
    static let pass =
        "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: soft_prompt }\n  - { answer: decline }\n"
    static let fail =
        "device: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: reminders, expect: none }\n  - { answer: decline }\n"

    func tree(_ files: [String: String]) throws -> Tree {
        let tree = Tree()
        tree.write("polite/policy.lua", try String(contentsOf: Self.policy, encoding: .utf8))
        for (name, text) in files { tree.write("polite/tests/\(name)", text) }
        return tree
    }

    @Test func fileLineSkipAndFailFast() async throws {
        let tree = try tree(["a.yaml": Self.pass, "b.yaml": Self.fail, "c.yaml": "skip: \"not yet\"\n" + Self.pass, "d.yaml": Self.pass])
        let one = try await CLITests.permit(["test", tree.path("polite/tests/b.yaml") + ":3"])
        #expect(one.status == 1 && one.stdout.hasSuffix("\n0 passed, 1 failed, 0 skipped\n"), "\(one.stdout)\(one.stderr)")
        let all = try await CLITests.permit(["test", tree.path()])
        #expect(all.status == 1 && all.stdout.hasSuffix("\n2 passed, 1 failed, 1 skipped\n"), "\(all.stdout)")
        #expect(all.stdout.contains("SKIP  ") && all.stdout.contains("(not yet)"))
        let fast = try await CLITests.permit(["test", "--fail-fast", tree.path()])
        #expect(fast.status == 1)
        #expect(
            fast.stdout.hasSuffix("stopped at the first failure (--fail-fast): 2 scenarios did not run\n1 passed, 1 failed, 0 skipped\n"))
        let past = try await CLITests.permit(["test", tree.path("polite/tests/a.yaml") + ":40"])
        #expect(past.status == 2 && past.stdout.contains("no scenario at line 40; the file has 4 lines"))
    }

    /// A `permit simulate` model kept beside the scenarios (in a pack's tests or a folder of
    /// its own) is skipped with a note; named on its own, it is an error that says what it is.
    @Test func aSimulateModelIsNoScenario() async throws {
        let model = try String(contentsOf: CLITests.repository.appendingPathComponent("examples/models/default.yaml"), encoding: .utf8)
        let tree = try tree(["a.yaml": Self.pass, "users.yaml": model])
        tree.write("models/default.yaml", model)
        let all = try await CLITests.permit(["test", tree.path()])
        #expect(all.status == 0 && all.stdout.hasSuffix("\n1 passed, 0 failed, 0 skipped\n"), "\(all.stdout)\(all.stderr)")
        #expect(all.stderr.contains("users.yaml: this is a permit simulate model, not a scenario"), "\(all.stderr)")
        #expect(all.stderr.contains("models/default.yaml: this is a permit simulate model"))
        let alone = try await CLITests.permit(["test", tree.path("models/default.yaml")])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("this is a permit simulate model"), "\(alone.stderr)")
        #expect(alone.stderr.contains("permit simulate POLICY --model"))
    }

    @Test func ciRefusesOnly() async throws {
        let tree = try tree(["a.yaml": Self.pass, "b.yaml": "only: true\n" + Self.pass])
        let focused = try await CLITests.permit(["test", tree.path()])
        #expect(focused.status == 0 && focused.stdout.contains("only: true left out 1 scenario\n"))
        let ci = try await CLITests.permit(["test", "--ci", tree.path()])
        #expect(ci.status == 2 && ci.stdout.contains("b.yaml:1:7: only: not allowed with --ci"), "\(ci.stdout)")
    }

    /// A bundle is made only when every test ran and passed: a focused suite is refused.
    @Test func bundleRefusesOnly() async throws {
        let tree = try tree(["a.yaml": Self.pass, "b.yaml": "only: true\n" + Self.pass])
        let out = tree.path("p.permitbundle")
        let refused = try await CLITests.permit(["bundle", tree.path("polite"), "--version", "1", "--out", out])
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("only: not allowed"))
        #expect(!FileManager.default.fileExists(atPath: out))
        tree.write("polite/tests/b.yaml", Self.pass)
        let made = try await CLITests.permit(["bundle", tree.path("polite"), "--version", "1", "--out", out])
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
    }

    @Test func aPolicyThatDoesNotLoadIsOneErrorAndExit2() async throws {
        let tree = try tree(["a.yaml": Self.pass, "b.yaml": Self.pass])
        tree.write("polite/policy.lua", "return {")
        let result = try await CLITests.permit(["test", tree.path()])
        #expect(result.status == 2)
        #expect(result.stdout.contains("the policy did not load; 2 scenarios did not run"))
        #expect(result.stdout.components(separatedBy: "unexpected symbol").count == 2, "\(result.stdout)")
    }

    @Test func usageErrorsExit2() async throws {
        let result = try await CLITests.permit(["test", "--fail-fast=3"])
        #expect(result.status == 2 && result.stderr.contains("Usage: permit test"), "\(result.stderr)")
        let missing = try await CLITests.permit(["decide", "policies/polite"])
        #expect(missing.status == 2 && missing.stderr.contains("--status"))
    }

    /// `--verbose` says what `permit run` says: pending reminders and those scheduled.
    @Test func verboseShowsPendingAndScheduledReminders() async throws {
        let result = try await CLITests.permit(["test", "--verbose", "policies/reminders"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(" pending; decision: "))
        #expect(result.stdout.contains("        scheduled "))
    }
}

/// `--watch`: which files a change re-runs, and the loop through the built `permit` (launched).
@Suite struct WatchTests {
    @Test func aPolicyChangeRerunsItsPackAndAScenarioChangeItself() throws {
        let tree = Tree()
        tree.write("p/policy.lua", "return {}")
        tree.write("p/tests/a.yaml", passing)
        tree.write("p/tests/b.yaml", passing)
        tree.write("q/policy.lua", "return {}")
        tree.write("q/tests/c.yaml", passing)
        tree.write("loose/d.yaml", "policy: ../p/policy.lua\n" + passing)
        let files = try Discovery.scenarios(under: [tree.path()])
        let names = { (changes: [String]) in
            WatchSnapshot.affected(files, by: changes.map { tree.root.appendingPathComponent($0).standardizedFileURL })
                .map(\.url.lastPathComponent)
        }
        #expect(names(["p/policy.lua"]) == ["d.yaml", "a.yaml", "b.yaml"])
        #expect(names(["q/tests/c.yaml"]) == ["c.yaml"])
        #expect(names(["elsewhere/helper.lua"]) == ["d.yaml"])
        #expect(names([]).isEmpty)
    }

    @Test func aChangedStepsFileRerunsTheScenariosThatIncludeIt() throws {
        let tree = Tree()
        tree.write("p/policy.lua", "return {}")
        tree.write("p/tests/common/launch.steps.yaml", "steps:\n  - event: app_launch\n")
        tree.write("p/tests/a.yaml", "device: { os: \"16.0\" }\nsteps:\n  - include: common/launch.steps.yaml\n")
        tree.write("p/tests/b.yaml", passing)
        let before = WatchSnapshot(paths: [tree.path()])
        tree.write("p/tests/common/launch.steps.yaml", "steps:\n  - event: app_foreground\n")
        let changes = WatchSnapshot(paths: [tree.path()]).changes(since: before)
        #expect(changes.map(\.lastPathComponent) == ["launch.steps.yaml"])
        let files = try Discovery.scenarios(under: [tree.path()])
        #expect(WatchSnapshot.affected(files, by: changes).map(\.url.lastPathComponent) == ["a.yaml"])
    }

    @Test func aSnapshotSeesEditsNewFilesAndDeletions() throws {
        let tree = Tree()
        tree.write("p/policy.lua", "return {}")
        tree.write("p/tests/a.yaml", passing)
        let before = WatchSnapshot(paths: [tree.path()])
        #expect(WatchSnapshot(paths: [tree.path()]).changes(since: before).isEmpty)
        tree.write("p/tests/a.yaml", passing + "# edited\n")
        tree.write("p/tests/b.yaml", passing)
        let after = WatchSnapshot(paths: [tree.path()])
        #expect(after.changes(since: before).map(\.lastPathComponent) == ["a.yaml", "b.yaml"])
        try FileManager.default.removeItem(atPath: tree.path("p/tests/b.yaml"))
        #expect(WatchSnapshot(paths: [tree.path()]).changes(since: after).map(\.lastPathComponent) == ["b.yaml"])
    }

    /// Keeps rewriting a file until told to stop, so one write lands after the watcher's first
    /// snapshot however long the first run takes.
    final class Editor: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false  // guarded by `lock`

        func start(_ write: @escaping @Sendable (Int) -> Void) {
            Thread { [self] in
                var count = 0
                while !lock.withLock({ stopped }) {
                    count += 1
                    write(count)
                    Thread.sleep(forTimeInterval: 0.2)
                }
            }.start()
        }

        func stop() { lock.withLock { stopped = true } }
    }

    /// Launches the binary: watch mode polls the files in a loop until its iterations end, so
    /// a bug there hangs; in a child the watchdog kills it and the test fails instead.
    @Test func watchRerunsTheChangedScenarioAndExitsWithItsCode() async throws {
        let tree = Tree()
        tree.write("polite/policy.lua", try String(contentsOf: TestSelectionCLITests.policy, encoding: .utf8))
        tree.write("polite/tests/a.yaml", TestSelectionCLITests.fail)
        tree.write("polite/tests/b.yaml", TestSelectionCLITests.pass)
        let editor = Editor()
        editor.start { count in tree.write("polite/tests/a.yaml", TestSelectionCLITests.pass + "# edit \(count)\n") }
        let result = try await CLITests.launch(["test", "--watch", "--watch-iterations", "1", tree.path()])
        editor.stop()
        #expect(result.status == 0, "the re-run passed: \(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("watching \(tree.path()) for changes"))
        #expect(result.stdout.contains("a.yaml changed: re-running 1 scenario\nPASS  "), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("\n1 passed, 0 failed, 0 skipped\n"))
    }
}
