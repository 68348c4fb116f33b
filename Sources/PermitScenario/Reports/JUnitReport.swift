import Foundation
import PermitInput

/// `--format junit`: the JUnit XML that CI systems read. One test suite per pack (loose files
/// form the suite "scenarios"), one test case per scenario, its failing steps in `<failure>`.
/// `<failure>` is a missed expectation (or snapshot); `<error>` is a scenario that could not
/// run (its file is wrong, its policy did not load) or one that failed where its policy raised
/// an error. `time` is seconds, per case and summed.
public enum JUnitReport {
    /// The run as JUnit XML, which CI systems show as test results.
    public static func render(_ run: TestRun) -> String {
        var suites: [(name: String, reports: [ScenarioReport])] = []
        for report in run.reports {
            let name = report.file.pack ?? "scenarios"
            if let index = suites.firstIndex(where: { $0.name == name }) {
                suites[index].reports.append(report)
            } else {
                suites.append((name, [report]))
            }
        }
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        xml.append("<testsuites name=\"permit\" " + counts(run.reports) + " time=\"\(seconds(run.reports))\">")
        for suite in suites {
            xml.append(
                "  <testsuite name=\"\(escape(suite.name))\" " + counts(suite.reports)
                    + " time=\"\(seconds(suite.reports))\">")
            for report in suite.reports { xml += testCase(report, suite: suite.name) }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n")
    }

    /// `tests`, `failures`, `errors` and `skipped` of some reports.
    static func counts(_ reports: [ScenarioReport]) -> String {
        let errors = reports.filter(isError).count
        let failures = reports.filter { !$0.passed && !$0.isSkipped && !isError($0) }.count
        let skipped = reports.filter(\.isSkipped).count
        return "tests=\"\(reports.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\""
    }

    /// An error, not a failure: the scenario could not run, or it failed where its policy raised
    /// (as JUnit tells an unexpected exception from a missed assertion).
    static func isError(_ report: ScenarioReport) -> Bool {
        report.isInputError || !policyErrors(report).isEmpty
    }

    /// The policy errors raised at the steps that failed, with their step.
    static func policyErrors(_ report: ScenarioReport) -> [String] {
        guard case .ran(let result) = report.verdict, !report.passed else { return [] }
        return result.failedSteps.flatMap { step -> [String] in
            let heard = step.earlierOutcomes + (step.outcome.map { [$0] } ?? [])
            let errors = heard.flatMap { $0.errors + $0.followUps.flatMap(\.errors) }
            return errors.map { "step \(step.number) (\(TextReport.place(of: step, in: result.file))): the policy raised an error: \($0)" }
        }
    }

    /// One `<testcase>` and what became of it.
    static func testCase(_ report: ScenarioReport, suite: String) -> [String] {
        let open =
            "    <testcase classname=\"\(escape(suite))\" name=\"\(escape(report.name))\" "
            + "file=\"\(escape(report.file.displayPath))\" time=\"\(seconds([report]))\""
        let body: String
        switch report.verdict {
        case .ran where report.passed:
            return [open + "/>"]
        case .ran(let result):
            var details = result.failedSteps.flatMap { step in
                step.failures.map { "step \(step.number) (\(TextReport.place(of: step, in: result.file))): \($0)" }
            }
            if let snapshot = report.snapshot, snapshot.failed {
                details.append(snapshot.summary)
                if case .differs(_, let diff) = snapshot { details.append(diff) }
            }
            let raised = policyErrors(report)
            let element = raised.isEmpty ? "failure" : "error"
            let message = raised.first ?? details.first ?? "aborted"
            body = "      <\(element) message=\"\(escape(message))\">\(escape((raised + details).joined(separator: "\n")))</\(element)>"
        case .policyFailed(let error, let policy, let count):
            body = "      <error message=\"\(escape("\(policy) did not load (\(count) scenario(s) did not run): \(error)"))\"/>"
        case .skipped(let reason):
            body = "      <skipped message=\"\(escape(reason))\"/>"
        case .inputError(let error):
            body = "      <error message=\"\(escape(error.description))\"/>"
        }
        return [open + ">", body, "    </testcase>"]
    }

    /// The reports' summed durations in seconds, to the millisecond, as JUnit's `time` reads.
    static func seconds(_ reports: [ScenarioReport]) -> String {
        let total = reports.compactMap(\.duration).reduce(Duration.zero, +)
        let (whole, fraction) = total.components
        return String(format: "%.3f", Double(whole) + Double(fraction) / 1e18)
    }

    /// XML-escapes text for attributes and content, dropping characters XML 1.0 cannot hold
    /// (`MarkupText`).
    public static func escape(_ text: String) -> String { MarkupText.escaped(text) }
}
