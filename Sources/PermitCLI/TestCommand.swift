import ArgumentParser
import Foundation
import PermitDelivery
import PermitInput
import PermitScenario

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the scenario tests of policy packs and check their expectations.",
        discussion: """
            Finds packs (<pack>/policy.lua with <pack>/tests/*.yaml) and loose scenario files under \
            the paths (default: policies), runs each scenario against its policy and checks every \
            expectation. Ends with `N passed, N failed, N skipped`. Exit 0 when all pass, 1 when one \
            fails (an expectation, or its snapshot under --snapshot), 2 on bad input, a policy that \
            does not load, or when no scenario is found.

            --snapshot compares each scenario's timeline (the `permit run` text) with \
            __snapshots__/FILE.yaml.snap next to it and shows a diff; --update writes them. \
            --coverage-format lcov|cobertura writes lcov.info or coverage.xml for CI services.

            Examples:
              permit test
              permit test policies/polite --verbose
              permit test policies/polite/tests/ios9.yaml:12
              permit test --fail-fast
              permit test policies/polite --watch
              permit test --coverage
              permit test --snapshot
              permit test --snapshot --update
              permit test --coverage-format lcov --coverage-output lcov.info
              permit test --filter ios9 --format junit > report.xml
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, junit }

    @Argument(help: "Packs, directories of packs, scenario files, or file.yaml:LINE (that file's scenario).")
    var paths: [String] = ["policies"]

    @Option(help: "Only scenarios whose path or name contains this text (case-insensitive).")
    var filter: String?

    @Flag(help: "Stop at the first scenario that fails; say how many did not run.")
    var failFast = false

    @Flag(help: "Refuse `only: true` in a scenario (exit 2), so a focused run cannot pass CI.")
    var ci = false

    @Flag(help: "After the run, watch the policies and scenario files and re-run the packs a change touches (Ctrl-C stops).")
    var watch = false

    /// For tests: stop watching after this many re-runs and exit with the last run's code.
    @Option(help: .hidden)
    var watchIterations: Int?

    @Flag(help: "Show passing steps too.")
    var verbose = false

    @Flag(help: "Report the lines of each policy that ran, and those that never did, and which return of decide answered.")
    var coverage = false

    @Option(
        help:
            "Also write coverage for CI services: lcov (lcov.info) or cobertura (coverage.xml); implies --coverage. Repeat it for both from one run."
    )
    var coverageFormat: [CoverageExport.Format] = []

    @Option(help: "Where --coverage-format writes (default lcov.info or coverage.xml in the working directory); with one format only.")
    var coverageOutput: String?

    /// The files `--coverage-format` asks for, each once, in the order given.
    var coverageFiles: [CoverageExport.Format] {
        var seen = Set<CoverageExport.Format>()
        return coverageFormat.filter { $0 != .text && seen.insert($0).inserted }
    }

    @Flag(help: "Compare each scenario's timeline with its snapshot in __snapshots__/FILE.snap; a missing or different one fails.")
    var snapshot = false

    @Flag(help: "Write the snapshots of the scenarios that run, creating missing ones; implies --snapshot. Not with --ci.")
    var update = false

    @OptionGroup var limitOptions: LimitOptions

    @Option(help: "Output format: text, json or junit.")
    var format: Format = .text

    func validate() throws {
        if update, ci { throw ValidationError("--update writes snapshots, and --ci never writes: drop one of them") }
        if coverageOutput != nil, coverageFiles.isEmpty {
            throw ValidationError("--coverage-output needs --coverage-format lcov or cobertura")
        }
        if coverageOutput != nil, coverageFiles.count > 1 {
            throw ValidationError(
                "--coverage-output names one file, and --coverage-format asks for \(coverageFiles.count): "
                    + "drop --coverage-output (each goes to its default, lcov.info and coverage.xml)")
        }
    }

    func run() async throws {
        var code = try await runOnce(discover(), emptyIsError: true)
        guard watch else {
            if code != 0 { throw ExitCode(code) }
            return
        }
        var reruns = 0
        var snapshot = WatchSnapshot(paths: paths)
        emit("\nwatching \(paths.joined(separator: ", ")) for changes (Ctrl-C stops)")
        while watchIterations.map({ reruns < $0 }) ?? true {
            try await Task.sleep(for: .milliseconds(250))
            let next = WatchSnapshot(paths: paths)
            let changes = next.changes(since: snapshot)
            guard !changes.isEmpty else { continue }
            snapshot = next
            reruns += 1
            let affected = WatchSnapshot.affected((try? discover()) ?? [], by: changes)
            emit(
                "\n\(changes.map { Discovery.displayPath(of: $0) }.joined(separator: ", ")) changed: "
                    + "re-running \(affected.count) scenario\(affected.count == 1 ? "" : "s")")
            code = try await runOnce(affected, emptyIsError: false)
        }
        if code != 0 { throw ExitCode(code) }
    }

    private func discover() throws -> [ScenarioFile] {
        do {
            let found = try Discovery.scenariosAndModels(under: paths)
            // A model beside the scenarios is not one of them: said on stderr, the report stays clean.
            for model in found.models {
                Terminal.printError(
                    "note: skipped \(model): this is a permit simulate model, not a scenario "
                        + "(run it with permit simulate POLICY --model \(model))")
            }
            return found.scenarios
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
    }

    /// One run and its report; the exit code it earns. An empty first run is bad input (exit 2);
    /// an empty re-run (a deleted file) is not.
    private func runOnce(_ files: [ScenarioFile], emptyIsError: Bool) async throws -> Int32 {
        let run = await TestRun.run(
            files,
            options: TestRun.Options(
                filter: filter, failFast: failFast, refuseOnly: ci,
                snapshots: update ? .update : snapshot ? .check : nil),
            loader: luaLoader(coverage: coverage || !coverageFiles.isEmpty, limits: limitOptions.limits),
            delivery: BundleDelivery())
        guard !run.reports.isEmpty || !emptyIsError else {
            Terminal.printError(
                "no scenarios found under \(paths.joined(separator: ", "))"
                    + (filter.map { " matching \"\($0)\"" } ?? ""))
            throw Exit.badInput
        }
        switch format {
        case .text: emit(TextReport(verbose: verbose, colour: Terminal.wantsColour).render(run))
        case .json: emit(JSONReport.render(run))
        case .junit: emit(JUnitReport.render(run))
        }
        try writeCoverage(run)
        return run.exitCode
    }

    /// `--coverage-format lcov|cobertura`: the file CI services read; named on stderr so the
    /// report on stdout stays what `--format` promises.
    private func writeCoverage(_ run: TestRun) throws {
        for format in coverageFiles {
            guard let path = coverageOutput ?? format.defaultOutput else { continue }
            let text: String
            switch format {
            case .text: continue
            case .lcov: text = CoverageExport.lcov(run)
            case .cobertura:
                let root = WorkingDirectory.current.standardizedFileURL.path
                text = CoverageExport.cobertura(run, sourceRoot: root, timestamp: Int64(Date().timeIntervalSince1970 * 1000))
            }
            try writeAtomically(Data(text.utf8), to: path)
            Terminal.printError("\(format.rawValue) coverage written to \(path)")
        }
    }

    /// Writes a line to stdout; the console writes unbuffered, so under `--watch` the report
    /// shows as the run ends, not when a pipe's buffer fills.
    private func emit(_ text: String) {
        Terminal.say(text)
    }
}

extension CoverageExport.Format: ExpressibleByArgument {}
