import Foundation
import Testing

/// The `permit` verbs write only through their `Console`: a `print`, a write to
/// `FileHandle.standardOutput`/`standardError` or an `isatty` in a command would go around the
/// console, so its output would vanish from an in-process run (and its tests) and its colour
/// would follow the test runner's terminal. Nor does a verb end the process (`exit`): in a
/// test that would end the test runner; it throws `ExitCode` instead. Reads files only.
@Suite struct ConsoleOnlyTests {
    /// Sources/PermitCLI and Sources/permit, except the file that is the real console.
    static func commandSources() throws -> [(name: String, text: String)] {
        let sources = LayeringTests.repository.appendingPathComponent("Sources")
        var found: [(String, String)] = []
        for directory in ["PermitCLI", "permit"] {
            let folder = sources.appendingPathComponent(directory)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            for file in files where file.hasSuffix(".swift") && file != "Console.swift" {
                found.append(("\(directory)/\(file)", try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)))
            }
        }
        return found
    }

    /// A bare `print(`, not a method of that name on something else.
    static func forbidden() throws -> [(pattern: Regex<AnyRegexOutput>, what: String)] {
        [
            (try Regex(#"(^|[^\w.])print\("#), "print"),
            (try Regex(#"FileHandle\.standard(Output|Error)"#), "FileHandle.standardOutput/standardError"),
            (try Regex(#"(^|[^\w.])isatty\("#), "isatty"),
        ]
    }

    @Test func commandsWriteOnlyThroughTheConsole() throws {
        let sources = try Self.commandSources()
        let forbidden = try Self.forbidden()
        #expect(sources.count > 10, "found the command sources")
        for (name, text) in sources {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for (pattern, what) in forbidden where code.contains(pattern) {
                    Issue.record(
                        "\(name):\(number + 1) calls \(what) directly; write through Console.current (Terminal.say, Terminal.printError)")
                }
            }
        }
    }

    /// The scan finds what it looks for: each pattern matches a line that breaks the rule.
    /// Only the executable's entry point may end the process, with the code the verbs answer.
    @Test func onlyTheEntryPointExits() throws {
        let exit = try Regex(#"(^|[^\w.])(Foundation\.)?exit\("#)
        let sources = try Self.commandSources()
        let exiting = sources.filter { source in
            source.text.split(separator: "\n").contains { line in
                (line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").contains(exit)
            }
        }.map(\.name)
        #expect(exiting == ["permit/PermitMain.swift"], "these call exit: \(exiting)")
    }

    @Test func theScanSeesEachForbiddenCall() throws {
        let forbidden = try Self.forbidden()
        let lines = ["print(\"x\")", "  FileHandle.standardError.write(data)", "if isatty(1) != 0 {"]
        for ((pattern, what), line) in zip(forbidden, lines) {
            #expect(line.contains(pattern), "\(what)")
        }
        #expect(!"Terminal.say(x); console.print(y)".contains(forbidden[0].pattern))
    }
}
