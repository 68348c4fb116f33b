import Foundation
import PermitInput

/// `--format junit`: the JUnit XML that CI systems read. One test suite per pack (loose files
/// form the suite "scenarios"), one test case per scenario, its failing steps in `<failure>`.
/// `<failure>` is a missed expectation (or snapshot); `<error>` is a scenario that could not
/// run: its file is wrong or its policy did not load. `time` is seconds, per case and summed.
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
        xml.append("<testsuites name=\"permit\" tests=\"\(run.reports.count)\" failures=\"\(run.failedCount)\" "
            + "errors=\"\(run.inputErrorCount)\" skipped=\"\(run.skippedCount)\" time=\"\(seconds(run.reports))\">")
        for suite in suites {
            let failures = suite.reports.filter { !$0.passed && !$0.isInputError && !$0.isSkipped }.count
            let errors = suite.reports.filter(\.isInputError).count
            let skipped = suite.reports.filter(\.isSkipped).count
            xml.append("  <testsuite name=\"\(escape(suite.name))\" tests=\"\(suite.reports.count)\" failures=\"\(failures)\" "
                + "errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(seconds(suite.reports))\">")
            for report in suite.reports {
                let open = "    <testcase classname=\"\(escape(suite.name))\" name=\"\(escape(report.name))\" "
                    + "file=\"\(escape(report.file.displayPath))\" time=\"\(seconds([report]))\""
                switch report.verdict {
                case .ran where report.passed:
                    xml.append(open + "/>")
                case .ran(let result):
                    var details = result.failedSteps.flatMap { step in
                        step.failures.map { "step \(step.number) (line \(step.location.line)): \($0)" }
                    }
                    if let snapshot = report.snapshot, snapshot.failed {
                        details.append(snapshot.summary)
                        if case .differs(_, let diff) = snapshot { details.append(diff) }
                    }
                    xml.append(open + ">")
                    xml.append("      <failure message=\"\(escape(details.first ?? "aborted"))\">\(escape(details.joined(separator: "\n")))</failure>")
                    xml.append("    </testcase>")
                case .policyFailed(let error, let policy, let count):
                    xml.append(open + ">")
                    xml.append("      <error message=\"\(escape("\(policy) did not load (\(count) scenario(s) did not run): \(error)"))\"/>")
                    xml.append("    </testcase>")
                case .skipped(let reason):
                    xml.append(open + ">")
                    xml.append("      <skipped message=\"\(escape(reason))\"/>")
                    xml.append("    </testcase>")
                case .inputError(let error):
                    xml.append(open + ">")
                    xml.append("      <error message=\"\(escape(error.description))\"/>")
                    xml.append("    </testcase>")
                }
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n")
    }

    /// The reports' summed durations in seconds, to the millisecond, as JUnit's `time` reads.
    static func seconds(_ reports: [ScenarioReport]) -> String {
        let total = reports.compactMap(\.duration).reduce(Duration.zero, +)
        let (whole, fraction) = total.components
        return String(format: "%.3f", Double(whole) + Double(fraction) / 1e18)
    }

    /// XML-escapes text for attributes and content; drops characters XML 1.0 cannot hold.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
