import Foundation

/// The `permit run` text of one scenario: a header, one line per step (with its reason,
/// warnings, errors, reminders and trace below it), what followed, and any missed expectation.
/// `permit test --snapshot` stores the same text, so a snapshot reads as `permit run` prints.
public enum ScenarioTimeline {
    /// The timeline of `result`, its header naming the scenario file as `file`.
    public static func render(_ result: ScenarioResult, file: String) -> String {
        let formatter = TimelineFormatter(fitting: result)
        // The arms the install is in, when the policy declares experiments.
        let arms =
            result.steps.lazy.compactMap { $0.outcome?.arms }.first { !$0.isEmpty }
            .map { ", arms " + $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") } ?? ""
        var lines = ["== \(result.name)  (\(file), policy \(result.policyName)\(arms))"]
        for step in result.steps {
            // What the app heard during the step, before its own event (a time change).
            for earlier in step.earlierOutcomes { lines.append(formatter.line(for: earlier)) }
            if let outcome = step.outcome {
                lines.append(formatter.line(for: outcome))
            } else {
                lines.append(
                    formatter.clock(step.time).padding(toLength: 9, withPad: " ", startingAt: 0)
                        + "\(step.action)  (status \(step.status), \(step.pendingReminders) pending)")
            }
            for note in step.notes { lines.append("         (\(note))") }
            for failure in step.failures {
                lines.append("         ✗ step \(step.number) (\(TextReport.place(of: step, in: result.file))): \(failure)")
            }
        }
        if let aborted = result.abortedAfterStep, aborted < result.totalSteps {
            lines.append("         stopped after step \(aborted) of \(result.totalSteps)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
