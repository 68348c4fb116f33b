import ArgumentParser
import Foundation
import PermitInput

/// The `permit` command line as a function: parse the arguments, run the verb, and answer
/// with the exit code, writing everything through a `Console`.
///
/// Why a function and not ArgumentParser's `main()`: `main()` prints with `print` and ends
/// the process with `exit`, so it can only run as the executable. This runs the same parsing
/// and the same commands, and returns. The `permit` executable calls it with the real console
/// and exits with its code; tests call it with a capturing console, in their own process.
public enum PermitCommandLine {
    /// Runs `permit ARGUMENTS` and returns its exit code (docs/reference/cli.md#exit-codes).
    ///
    /// ArgumentParser exits 64 (EX_USAGE) on a usage error; `permit` promises 2 for every
    /// kind of bad input, so scripts need test for one code only. Help and `--version` go to
    /// standard output with 0; other messages go to standard error; a command's `ExitCode`
    /// is the code.
    ///
    /// - Parameters:
    ///   - arguments: the arguments after the program name.
    ///   - console: where output goes, and the environment and directory the command sees.
    /// - Returns: the exit status.
    public static func run(arguments: [String], console: Console) async -> Int32 {
        await Console.$current.withValue(console) {
            await WorkingDirectory.$bound.withValue(console.workingDirectory) {
                await parseAndRun(arguments, console: console)
            }
        }
    }

    /// Parses and runs under the bound console; every thrown error becomes its message and code.
    private static func parseAndRun(_ arguments: [String], console: Console) async -> Int32 {
        do {
            var command = try PermitCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = PermitCommand.exitCode(for: error)
            let message = PermitCommand.fullMessage(for: error, columns: console.columns)
            if code == .validationFailure {
                console.write(message + "\n", to: .error)
                return Exit.badInput.rawValue
            }
            if !message.isEmpty { console.write(message + "\n", to: code == .success ? .output : .error) }
            return code.rawValue
        }
    }
}
