import ArgumentParser
import Foundation
import PermitCore
import PermitDelivery
import PermitInput
import PermitLua
import PermitScenario

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play scenarios against a policy and print every step.",
        discussion: """
            Prints one line per step: the clock, the event, the status before → after, the decision \
            with its localised text, then its reason, guardrail warnings, policy errors, whether the \
            system dialog appeared and the reminders scheduled. Expectations in the files are checked \
            and any miss is shown, but only `permit test` turns them into a failing exit code. \
            Exit 0 when every step ran, 1 when a step could not be carried out (an answer with \
            nothing on screen; the scenario stops there), 2 for input errors.

            Examples:
              permit run policies/polite examples/walkthrough.yaml
              permit run policies/polite/policy.lua examples/*.yaml --format json
            """)

    @Argument(help: "The policy file, or a pack directory holding policy.lua.")
    var policy: String

    @Argument(help: "Scenario files to play.")
    var scenarios: [String]

    @OptionGroup var limitOptions: LimitOptions

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        guard !scenarios.isEmpty else { throw ValidationError("give at least one scenario file") }
    }

    func run() async throws {
        let url = try policyURL(policy)
        var results: [ScenarioRecords] = []
        var sawInputError = false
        var stepCouldNotRun = false
        for path in scenarios {
            let scenarioURL = Terminal.file(path)
            do {
                for scenario in try ScenarioParser.parseCases(contentsOf: scenarioURL, displayName: path) {
                    let limits = limitOptions.limits
                    // Each cold launch of the app loads the policy again: a fresh VM, as on a device.
                    let result = try await ScenarioRunner(
                        policy: try loadPolicy(url, limits: limits),
                        relaunch: { () throws(PolicyError) -> any Policy in
                            try LuaPolicy.load(
                                contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limits,
                                copy: try packCopy(besidePolicy: url))
                        }, delivery: BundleDelivery()
                    ).run(scenario)
                    if result.abortedAfterStep != nil { stepCouldNotRun = true }
                    if format == .json {
                        results.append(
                            ScenarioRecords(
                                file: path, name: result.name, policy: result.policyName, steps: result.steps.map(JSONReport.step),
                                records: result.steps.flatMap { ($0.earlierOutcomes + ($0.outcome.map { [$0] } ?? [])).map(\.record) }))
                    } else {
                        Terminal.say(ScenarioTimeline.render(result, file: result.file))
                    }
                }
            } catch let error as InputError {
                Terminal.printError(error.description)
                sawInputError = true
            }
        }
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Terminal.say(String(decoding: try encoder.encode(results), as: UTF8.self))
        }
        if sawInputError { throw Exit.badInput }
        // A step that could not be carried out (an answer with nothing on screen, a policy that
        // failed to load at a launch) ended its scenario early: the story did not play out.
        if stepCouldNotRun { throw Exit.failure }
    }

    /// One scenario of `--format json`: its steps as `permit test --format json` prints them,
    /// and the decision records of the steps that sent an event, exactly as a host's
    /// `PermissionEngine.decisionRecords` yields them (docs/reference/policy.md#decision-records).
    struct ScenarioRecords: Encodable {
        let file: String
        let name: String
        let policy: String
        let steps: [PolicyValue]
        let records: [DecisionRecord]
    }
}
