import ArgumentParser
import Foundation

/// The `permit` command line: a thin layer over PermitScenario and PermitCore.
@main
struct PermitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permit",
        abstract: "Decide how an app asks for notification permission, and test those decisions.",
        version: "0.1.0",
        subcommands: [
            RunCommand.self, TestCommand.self, DecideCommand.self, CheckCommand.self, BenchCommand.self,
            SimulateCommand.self, BundleCommand.self, KeygenCommand.self, SignCommand.self, VerifyCommand.self,
            NewCommand.self,
        ]
    )

    /// ArgumentParser exits 64 (EX_USAGE) on a usage error; docs/reference.md#exit-codes
    /// promises 2 for every kind of bad input, so scripts need test for one code only.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}
