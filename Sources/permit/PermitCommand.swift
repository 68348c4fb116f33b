import ArgumentParser

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
        ]
    )
}
