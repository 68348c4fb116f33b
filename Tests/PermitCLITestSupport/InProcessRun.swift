import Foundation
import PermitCLI
import PermitTestSupport

/// Runs `permit ARGUMENTS` inside the test process and answers as `runProcess` does for the
/// built binary: the exit status, standard output and standard error.
///
/// Why: launching the debug binary costs tens of milliseconds of CPU per run, and the suite
/// ran it ~150 times. This runs the same entry point the executable calls
/// (`PermitCommandLine.run`) on a capturing console that answers like two pipes (no
/// terminal, no colour, help at 80 columns), with `directory` as the working directory
/// relative paths and display paths follow, so a test's assertions hold for both.
///
/// What it cannot show, and tests that launch the binary still check: the process's real exit
/// status and streams, signals, a terminal, and a crash (here it would end the test runner).
///
/// - Parameters:
///   - arguments: the arguments after `permit`.
///   - directory: the working directory the command sees.
///   - environment: variables added to this process's environment, as for a child.
/// - Returns: the status and both outputs; `timedOut` is always false.
public func runPermitInProcess(
    _ arguments: [String], in directory: URL, environment: [String: String] = [:]
) async -> ProcessResult {
    let output = CapturedOutput()
    let console = Console.capturing(
        into: output, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
        workingDirectory: directory.standardizedFileURL)
    let status = await PermitCommandLine.run(arguments: arguments, console: console)
    return ProcessResult(status: status, stdout: output.standardOutput, stderr: output.standardError)
}
