import Foundation
import PermitCore
import PermitLua
import PermitTestSupport
@testable import PermitScenario

/// `permit test PATHS` (text format, no flags) run inside the test process.
///
/// Why: most scenario-language tests only check what the scenario parser, runner and text
/// report produce for a pack; launching the `permit` binary for each cost ~20 ms of CPU in
/// a child (issue #18). This runs the same library pieces the command wires together
/// (`Discovery`, `TestRun`, `TextReport`, the Lua loader) and answers in the shape of a
/// process result, so those tests keep their assertions. `CLITests` still launches the binary
/// to check the command's own wiring: exit codes, formats, flags, stderr.
enum InProcessTestCommand {
    /// The status, stdout and stderr `permit test paths` would give, without `--coverage`,
    /// `--snapshot` or bundle delivery (tests of those launch the binary).
    static func run(_ paths: [String]) async -> ProcessResult {
        let files: [ScenarioFile]
        do {
            files = try Discovery.scenarios(under: paths)
        } catch {
            return ProcessResult(status: 2, stdout: "", stderr: "permit: \(error)\n", timedOut: false)
        }
        let run = await TestRun.run(files, options: TestRun.Options()) { url throws(PolicyError) in
            try LuaPolicy.load(contentsOf: url, displayName: Discovery.displayPath(of: url))
        }
        guard !run.reports.isEmpty else {
            return ProcessResult(
                status: 2, stdout: "", stderr: "permit: no scenarios found under \(paths.joined(separator: ", "))\n",
                timedOut: false)
        }
        return ProcessResult(
            status: run.exitCode, stdout: TextReport(verbose: false, colour: false).render(run) + "\n", stderr: "",
            timedOut: false)
    }
}
