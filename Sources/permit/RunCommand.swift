import ArgumentParser
import Foundation
import PermitCore
import PermitDelivery
import PermitInput
import PermitScenario

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play scenarios against a policy and print every step.",
        discussion: """
            Prints one line per step: the clock, the event, the status before → after, the decision \
            with its localised text, then its reason, guardrail warnings, policy errors, whether the \
            system dialog appeared and the reminders scheduled. Expectations in the files are checked \
            and any miss is shown, but only `permit test` turns them into a failing exit code.

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
        var results: [PolicyValue] = []
        var sawInputError = false
        for path in scenarios {
            let scenarioURL = URL(fileURLWithPath: path)
            do {
                let scenario = try ScenarioParser.parse(contentsOf: scenarioURL, displayName: path)
                let result = try await ScenarioRunner(policy: try loadPolicy(url, limits: limitOptions.limits), delivery: BundleDelivery()).run(scenario)
                if format == .json {
                    results.append(.table([
                        "file": .string(path), "name": .string(result.name), "policy": .string(result.policyName),
                        "steps": .list(result.steps.map(JSONReport.step)),
                    ]))
                } else {
                    print(render(result))
                }
            } catch let error as InputError {
                Terminal.printError(error.description)
                sawInputError = true
            }
        }
        if format == .json { print(PolicyValue.list(results).prettyJSON) }
        if sawInputError { throw Exit.badInput }
    }

    func render(_ result: ScenarioResult) -> String {
        let formatter = TimelineFormatter(start: result.start)
        var lines = ["== \(result.name)  (\(result.file), policy \(result.policyName))"]
        for step in result.steps {
            if let outcome = step.outcome {
                lines.append(formatter.line(for: outcome))
            } else {
                lines.append(formatter.clock(step.time).padding(toLength: 9, withPad: " ", startingAt: 0)
                    + "\(step.action)  (status \(step.status), \(step.pendingReminders) pending)")
            }
            for note in step.notes { lines.append("         (\(note))") }
            for failure in step.failures { lines.append("         ✗ step \(step.number) (line \(step.location.line)): \(failure)") }
        }
        if let aborted = result.abortedAfterStep, aborted < result.totalSteps {
            lines.append("         stopped after step \(aborted) of \(result.totalSteps)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
