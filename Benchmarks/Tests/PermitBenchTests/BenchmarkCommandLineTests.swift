import Foundation
import Testing

/// `permit-benchmark`'s command line: a misspelt option must not be ignored (the run would
/// measure the defaults and look like an answer), and `--help` says what the options are.
/// The built executable is launched: its exit status and streams are what a user sees.
@Suite struct BenchmarkCommandLineTests {
    static func benchmark(_ arguments: [String]) throws -> ProcessResult {
        try runBenchmark(arguments)
    }

    @Test func helpPrintsTheOptionsAndSectionsAndSucceeds() throws {
        let result = try Self.benchmark(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: permit-benchmark [<policy-path>]"))
        #expect(result.stdout.contains("--pack-users <pack-users>"))
        #expect(result.stdout.contains("--pack <name>"))
        #expect(result.stdout.contains("--sample-users <sample-users>"))
        #expect(result.stdout.contains("minimal"))
    }

    @Test(arguments: [
        (["--decision", "5"], "Unknown option '--decision'. Did you mean '--decisions'?"),
        (["--users", "many"], "The value 'many' is invalid for '--users <users>'"),
        (["--workers", "0"], "--workers must be a positive whole number, got 0"),
        (["--days"], "Missing value for '--days <days>'"),
        (["--only", "fast"], "--only takes one of engine, policy,"),
        (["--pack", "../policies/polite"], "--pack takes one of "),
        (["--only", "minimal", "--pack", "polite"], "--pack applies to the packs section, not to --only minimal"),
        (["--sample-users", "0"], "--sample-users must be a positive whole number, got 0"),
        (["policies/polite/policy.lua", "policies/lessons/policy.lua"], "Unexpected argument 'policies/lessons/policy.lua'"),
    ])
    func aWrongCommandLineIsRefusedWithWhatIsWrong(arguments: [String], message: String) throws {
        let result = try Self.benchmark(arguments)
        #expect(result.status == 64, "EX_USAGE, as `permit` answers a wrong command line")
        #expect(result.stderr.contains("Error: \(message)"))
        #expect(result.stdout.isEmpty, "nothing was measured")
    }

    /// A misspelt pack is refused with the packs there are (those of policies/ with a policy).
    @Test func anUnknownPackIsRefusedWithThePacksThereAre() throws {
        let result = try Self.benchmark(["--pack", "politely"])
        let packs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("policies").path)
            .filter { FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("policies/\($0)/policy.lua").path) }
            .sorted()
        #expect(result.status == 64)
        #expect(result.stderr.contains("Error: --pack takes one of \(packs.joined(separator: ", ")), got \"politely\""))
        #expect(result.stdout.isEmpty)
    }

    /// `--pack` measures that pack alone, and `--sample-users` sets how many users' calls the
    /// minimal host replays: a short run of one pack, for profiling.
    @Test func onePackIsMeasuredAlone() throws {
        let result = try Self.benchmark([
            "--only", "packs", "--pack", "provisional-first", "--pack-users", "20", "--days", "3", "--sample-users", "20",
            "--workers", "1",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // A pack's row starts with its name; every pack of policies/ but this one is absent.
        let packs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("policies").path)
        let measured = packs.filter { pack in
            result.stdout.split(separator: "\n").contains { $0.hasPrefix("  \(pack) ") }
        }
        #expect(packs.count > 1)
        #expect(measured == ["provisional-first"], "\(result.stdout)")
        #expect(result.stdout.contains(" events (20 users)"), "the host replays --sample-users users' calls")
    }
}
