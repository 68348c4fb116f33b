import PermitCore

/// `permit test` for people: one line per scenario, the failing steps explained, and the
/// closing `N passed, N failed` line.
public struct TextReport: Sendable {
    /// Show passing steps too.
    public var verbose: Bool
    /// Colour the verdicts (only on a terminal).
    public var colour: Bool

    /// A text report.
    public init(verbose: Bool = false, colour: Bool = false) {
        self.verbose = verbose
        self.colour = colour
    }

    /// The run for people: each failure with its step, line and what differed, then the counts.
    public func render(_ run: TestRun) -> String {
        var out: [String] = []
        for report in run.reports {
            switch report.verdict {
            case .inputError(let error):
                out.append("\(paint("ERROR", 33)) \(report.file.displayPath)")
                out.append("      \(error)")
            case .policyFailed(let error):
                out.append("\(paint("FAIL", 31))  \(report.file.displayPath)  \(report.name)")
                out.append("      the policy did not load: \(error)")
            case .ran(let result):
                let label = result.passed ? paint("PASS", 32) : paint("FAIL", 31)
                out.append("\(label)  \(report.file.displayPath)  \(result.name) (\(result.totalSteps) step\(result.totalSteps == 1 ? "" : "s"))")
                let formatter = TimelineFormatter(start: result.start)
                for step in result.steps where verbose || !step.passed {
                    out.append(contentsOf: describe(step, formatter: formatter))
                }
                if let aborted = result.abortedAfterStep, aborted < result.totalSteps {
                    out.append("      steps \(aborted + 1)–\(result.totalSteps) did not run")
                }
            }
        }
        let coverage = run.coverage
        if !coverage.isEmpty {
            out.append("")
            out.append("coverage")
            for file in coverage {
                let missed = file.missed
                out.append("  \(file.file)  " + String(format: "%.1f%%", file.percent)
                    + "  (\(file.executable.count - missed.count) of \(file.executable.count) lines)"
                    + (missed.isEmpty ? "" : "  not run: " + LineRanges.describe(missed)))
            }
        }
        out.append("")
        if run.inputErrorCount > 0 {
            out.append("\(run.inputErrorCount) scenario file\(run.inputErrorCount == 1 ? "" : "s") could not be read (exit 2)")
        }
        out.append("\(run.passedCount) passed, \(run.failedCount) failed")
        return out.joined(separator: "\n")
    }

    func describe(_ step: StepResult, formatter: TimelineFormatter) -> [String] {
        var lines = ["      step \(step.number) (line \(step.location.line)) \(formatter.clock(step.time)) \(step.action)"]
        if let outcome = step.outcome {
            lines.append("        status \(outcome.statusBefore) → \(outcome.statusAfter); decision: \(formatter.describe(outcome.decision))"
                + (outcome.dialogShown ? " [system dialog shown]" : ""))
            if let reason = outcome.decision.reason ?? outcome.proposed?.reason { lines.append("        reason: \(reason)") }
            for warning in outcome.warnings { lines.append("        warning \(warning)") }
            for error in outcome.errors { lines.append("        error \(error)") }
            for traceLine in outcome.trace.split(separator: "\n") { lines.append("        trace: \(traceLine)") }
            for followUp in outcome.followUps {
                lines.append("        ↳ \(followUp.event): \(formatter.describe(followUp.decision))"
                    + (followUp.decision.reason.map { " (reason: \($0))" } ?? ""))
                for warning in followUp.warnings { lines.append("          warning \(warning)") }
                for error in followUp.errors { lines.append("          error \(error)") }
            }
        } else {
            lines.append("        status \(step.status)")
        }
        for note in step.notes { lines.append("        (\(note))") }
        for failure in step.failures { lines.append("        \(paint("✗", 31)) \(failure)") }
        return lines
    }

    private func paint(_ text: String, _ code: Int) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// `3, 4, 5, 9` → `3–5, 9`.
enum LineRanges {
    static func describe(_ lines: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < lines.count {
            var end = index
            while end + 1 < lines.count, lines[end + 1] == lines[end] + 1 { end += 1 }
            parts.append(end == index ? "\(lines[index])" : "\(lines[index])–\(lines[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }
}
