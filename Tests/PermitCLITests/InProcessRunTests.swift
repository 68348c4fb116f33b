import Foundation
import PermitCLITestSupport
import PermitInput
import PermitTestSupport
import Testing

@testable import PermitScenario

/// The in-process `permit` (`runPermitInProcess`) keeps each run apart, as separate processes
/// are: its own output, and its own working directory for relative paths and display paths,
/// although the process has one working directory and tests run in parallel.
@Suite struct InProcessRunTests {
    /// A pack `polite` under a fresh root whose one scenario passes or fails.
    static func tree(passing: Bool) throws -> Tree {
        let tree = Tree()
        tree.write("polite/policy.lua", try String(contentsOf: TestSelectionCLITests.policy, encoding: .utf8))
        tree.write("polite/tests/only.yaml", passing ? TestSelectionCLITests.pass : TestSelectionCLITests.fail)
        return tree
    }

    /// Two runs at once, each naming `polite` relative to its own directory: each finds its own
    /// pack, shows the path relative to its directory, and gets its own output and code.
    @Test func concurrentRunsKeepTheirOwnDirectoryAndOutput() async throws {
        let good = try Self.tree(passing: true), bad = try Self.tree(passing: false)
        for _ in 0..<4 {
            async let passed = runPermitInProcess(["test", "polite"], in: good.root)
            async let failed = runPermitInProcess(["test", "polite"], in: bad.root)
            let (pass, fail) = await (passed, failed)
            #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
            #expect(pass.stdout.hasPrefix("PASS  polite/tests/only.yaml"), "\(pass.stdout)")
            #expect(pass.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"))
            #expect(fail.status == 1, "\(fail.stdout)\(fail.stderr)")
            #expect(fail.stdout.hasPrefix("FAIL  polite/tests/only.yaml"), "\(fail.stdout)")
            #expect(fail.stdout.hasSuffix("0 passed, 1 failed, 0 skipped\n"))
            #expect(pass.stderr.isEmpty && fail.stderr.isEmpty)
        }
    }

    /// A relative path resolves inside the bound directory even when its URL has no trailing
    /// slash (a base without one would put `polite` beside it); an absolute path is as written;
    /// with nothing bound, the process's directory applies exactly as before.
    @Test func pathsResolveAgainstTheBoundDirectory() {
        let root = URL(fileURLWithPath: "/tmp/permit-working-directory-\(UUID().uuidString)")
        WorkingDirectory.$bound.withValue(root) {
            let url = WorkingDirectory.url(for: "polite/policy.lua")
            #expect(url.path == root.path + "/polite/policy.lua")
            #expect(url.relativePath == "polite/policy.lua", "messages can still show the path as typed")
            #expect(WorkingDirectory.url(for: "/etc/hosts").path == "/etc/hosts")
            #expect(Discovery.displayPath(of: url) == "polite/policy.lua")
            #expect(Discovery.displayPath(of: URL(fileURLWithPath: "/etc/hosts")) == "/etc/hosts")
        }
        #expect(WorkingDirectory.bound == nil)
        #expect(WorkingDirectory.url(for: "a/b") == URL(fileURLWithPath: "a/b"))
        #expect(WorkingDirectory.current.path == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).path)
    }
}
