import Foundation
import Testing

/// docs/reference.md lists exactly the verbs and options of the built `permit`, as its argument
/// parser describes them (`--experimental-dump-help`, hidden options included).
@Suite struct ReferenceCommandLineTests {
    let reference: ReferenceTables

    init() throws { reference = try ReferenceTables() }

    /// The parts of ArgumentParser's help dump this test reads.
    struct HelpDump: Decodable {
        struct Command: Decodable {
            var commandName: String
            var arguments: [Argument]?
            var subcommands: [Command]?
        }

        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }

            var kind: String
            var names: [Name]?
        }

        var command: Command
    }

    /// The long options and flags of a command, without the `--help` and `--version` every
    /// command gets from the parser.
    static func options(of command: HelpDump.Command) -> [String] {
        (command.arguments ?? []).compactMap { argument in
            guard argument.kind != "positional" else { return nil }
            let long = (argument.names ?? []).filter { $0.kind == "long" }.map(\.name)
            if argument.kind == "flag", Set(long).isSubset(of: ["help", "version"]) { return nil }
            return long.first.map { "--" + $0 }
        }
    }

    @Test func everyVerbAndOptionIsDocumented() throws {
        let result = try CLITests.permit(["--experimental-dump-help"])
        #expect(result.status == 0, "\(result.stderr)")
        let dump = try JSONDecoder().decode(HelpDump.self, from: Data(result.stdout.utf8))
        let verbs = (dump.command.subcommands ?? []).filter { $0.commandName != "help" }
        #expect(try reference.keys("cli") == verbs.map(\.commandName))
        for verb in verbs {
            let documented = try reference.keys("cli.\(verb.commandName)")
            #expect(Set(documented) == Set(Self.options(of: verb)), "docs/reference.md <!-- keys: cli.\(verb.commandName) -->")
        }
    }
}
