import Foundation
import PermitTestSupport
import Testing

/// docs/reference/cli.md lists exactly the verbs and options of `permit`, as its argument
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

    @Test func everyVerbAndOptionIsDocumented() async throws {
        let result = try await CLITests.permit(["--experimental-dump-help"])
        #expect(result.status == 0, "\(result.stderr)")
        let dump = try JSONDecoder().decode(HelpDump.self, from: Data(result.stdout.utf8))
        let verbs = (dump.command.subcommands ?? []).filter { $0.commandName != "help" }
        #expect(try reference.keys("cli") == verbs.map(\.commandName))
        for verb in verbs {
            let documented = try reference.keys("cli.\(verb.commandName)")
            #expect(Set(documented) == Set(Self.options(of: verb)), "docs/reference/cli.md <!-- keys: cli.\(verb.commandName) -->")
        }
    }

    /// The exit code the reference gives for a usage error is the one an unknown option gets.
    /// Launches the binary: ArgumentParser's own code for it is 64, and only the process's
    /// real exit status shows that the executable maps it to 2.
    @Test func aUsageErrorExitsAsDocumented() async throws {
        let text = try reference.page("cli")
        let section = try #require(text.range(of: "<a id=\"exit-codes\"></a>"))
        let row = try #require(text[section.upperBound...].split(separator: "\n").first { $0.contains("usage error") })
        let code = try #require(Int32(row.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? ""))
        let result = try await CLITests.launch(["test", "--no-such-option"])
        #expect(result.status == code, "docs/reference/cli.md#exit-codes says \(code) for a usage error")
        #expect(result.stderr.contains("--no-such-option"))
    }
}
