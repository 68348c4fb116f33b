import ArgumentParser
import Foundation
import PermitDelivery

/// The `permit` command line: a thin layer over PermitScenario and PermitCore. It is not the
/// executable's entry point; `PermitCommandLine.run` is (see there for why).
struct PermitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permit",
        abstract: "Decide how an app asks for notification permission, and test those decisions.",
        // `permit --version`: the engine this binary is, the one version bundles name in `min_engine`.
        version: EngineVersion.current.description,
        subcommands: [
            RunCommand.self, TestCommand.self, DecideCommand.self, CheckCommand.self, BenchCommand.self,
            SimulateCommand.self, BundleCommand.self, KeygenCommand.self, SignCommand.self, VerifyCommand.self,
            NewCommand.self, FitCommand.self, ServeCommand.self,
        ]
    )
}
