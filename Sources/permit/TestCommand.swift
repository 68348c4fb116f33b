import ArgumentParser
import Foundation
import PermitDelivery
import PermitScenario

struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the scenario tests of policy packs and check their expectations.",
        discussion: """
            Finds packs (<pack>/policy.lua with <pack>/tests/*.yaml) and loose scenario files under \
            the paths (default: policies), runs each scenario against its policy and checks every \
            expectation. Ends with `N passed, N failed, N skipped`. Exit 0 when all pass, 1 when one \
            fails, 2 on bad input, a policy that does not load, or when no scenario is found.

            Examples:
              permit test
              permit test policies/polite --verbose
              permit test policies/polite/tests/ios9.yaml:12
              permit test --fail-fast
              permit test --coverage
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

    @Flag(help: "Show passing steps too.")
    var verbose = false

    @Flag(help: "Report the lines of each policy that ran, and those that never did.")
    var coverage = false

    @OptionGroup var limitOptions: LimitOptions

    @Option(help: "Output format: text, json or junit.")
    var format: Format = .text

    func run() async throws {
        let files: [ScenarioFile]
        do {
            files = try Discovery.scenarios(under: paths)
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
        let run = await TestRun.run(
            files, options: TestRun.Options(filter: filter, failFast: failFast, refuseOnly: ci),
            loader: luaLoader(coverage: coverage, limits: limitOptions.limits), delivery: BundleDelivery())
        guard !run.reports.isEmpty else {
            Terminal.printError("no scenarios found under \(paths.joined(separator: ", "))"
                + (filter.map { " matching \"\($0)\"" } ?? ""))
            throw Exit.badInput
        }
        switch format {
        case .text: print(TextReport(verbose: verbose, colour: Terminal.wantsColour).render(run))
        case .json: print(JSONReport.render(run))
        case .junit: print(JUnitReport.render(run))
        }
        if run.exitCode != 0 { throw ExitCode(run.exitCode) }
    }
}
