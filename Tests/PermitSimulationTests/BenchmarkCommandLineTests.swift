import Foundation
import Testing
import PermitTestSupport

/// `permit-benchmark`'s command line: a misspelt option must not be ignored (the run would
/// measure the defaults and look like an answer), and `--help` says what the options are.
/// The built executable is launched: its exit status and streams are what a user sees.
@Suite struct BenchmarkCommandLineTests {
    static func benchmark(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(builtExecutable(named: "permit-benchmark"), arguments, in: repositoryRoot, limit: 60)
    }

    @Test func helpPrintsTheOptionsAndSucceeds() throws {
        let result = try Self.benchmark(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("usage: permit-benchmark [POLICY]"))
        #expect(result.stdout.contains("--pack-users N"))
        #expect(result.stdout.contains("minimal"))
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [
        (["--decision", "5"], "unknown option --decision; the options are --decisions,"),
        (["--users", "many"], "--users needs a positive whole number, got \"many\""),
        (["--workers", "0"], "--workers needs a positive whole number, got \"0\""),
        (["--days"], "--days needs a value"),
        (["policies/polite/policy.lua", "policies/lessons/policy.lua"],
         "one policy file only: got policies/polite/policy.lua and policies/lessons/policy.lua"),
    ])
    func aWrongCommandLineIsRefusedWithWhatIsWrong(arguments: [String], message: String) throws {
        let result = try Self.benchmark(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("permit-benchmark: \(message)"))
        #expect(result.stderr.contains("usage: permit-benchmark"))
        #expect(result.stdout.isEmpty, "nothing was measured")
    }
}
