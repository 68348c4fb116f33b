import PermitCore
import PermitInput

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
            case .policyFailed(let error, let policy, let scenarios):
                out.append(
                    "\(paint("ERROR", 33)) \(policy)  the policy did not load; "
                        + "\(scenarios) scenario\(scenarios == 1 ? "" : "s") did not run")
                out.append("      \(error)")
            case .skipped(let reason):
                out.append("\(paint("SKIP", 33))  \(report.file.displayPath)  \(TerminalText.inline(report.name))  (\(reason))")
            case .ran(let result):
                let label = report.passed ? paint("PASS", 32) : paint("FAIL", 31)
                out.append(
                    "\(label)  \(report.file.displayPath)  \(TerminalText.inline(result.name)) (\(result.totalSteps) step\(result.totalSteps == 1 ? "" : "s"))"
                )
                let formatter = TimelineFormatter(start: result.start)
                for step in result.steps where verbose || !step.passed {
                    out.append(contentsOf: describe(step, formatter: formatter, file: result.file))
                }
                if let aborted = result.abortedAfterStep, aborted < result.totalSteps {
                    out.append("      " + Self.unrunSteps(from: aborted + 1, to: result.totalSteps))
                }
                if let snapshot = report.snapshot { out += describe(snapshot) }
            }
        }
        let coverage = run.coverage
        if !coverage.isEmpty {
            out.append("")
            out.append("coverage")
            for file in coverage {
                let missed = file.missed
                out.append(
                    "  \(file.file)  " + String(format: "%.1f%%", file.percent)
                        + "  (\(file.executable.count - missed.count) of \(file.executable.count) lines)"
                        + (missed.isEmpty ? "" : "  not run: " + LineRanges.describe(missed)))
            }
            out += Self.describe(run.decisionCoverage, voided: run.voidedAnswers)
        }
        out.append("")
        out += summary(run)
        return out.joined(separator: "\n")
    }

    /// The closing lines: what could not run and why, then `N passed, N failed, N skipped`,
    /// always last and always in that form, since CI scripts read it.
    func summary(_ run: TestRun) -> [String] {
        var out: [String] = []
        let unreadable = run.reports.filter { if case .inputError = $0.verdict { true } else { false } }.count
        if unreadable > 0 {
            out.append("\(unreadable) scenario file\(unreadable == 1 ? "" : "s") could not be read (exit 2)")
        }
        let brokenPolicies = run.inputErrorCount - unreadable
        if brokenPolicies > 0 {
            out.append("\(brokenPolicies) polic\(brokenPolicies == 1 ? "y" : "ies") did not load (exit 2)")
        }
        if run.leftOutByOnly > 0 {
            out.append("only: true left out \(run.leftOutByOnly) scenario\(run.leftOutByOnly == 1 ? "" : "s")")
        }
        if run.notRun > 0 {
            out.append("stopped at the first failure (--fail-fast): \(run.notRun) scenario\(run.notRun == 1 ? "" : "s") did not run")
        }
        if run.snapshotsWritten > 0 {
            out.append("\(run.snapshotsWritten) snapshot\(run.snapshotsWritten == 1 ? "" : "s") written")
        }
        out.append("\(run.passedCount) passed, \(run.failedCount) failed, \(run.skippedCount) skipped")
        return out
    }

    /// A snapshot that failed, or was written, under the scenario's line; a match says nothing.
    func describe(_ snapshot: GoldenTimeline.Outcome) -> [String] {
        guard case .matched = snapshot else {
            var lines = ["      " + (snapshot.failed ? paint("✗", 31) + " " : "") + snapshot.summary]
            if case .differs(_, let diff) = snapshot {
                lines += diff.split(separator: "\n", omittingEmptySubsequences: false).map { "        " + $0 }
            }
            return lines
        }
        return []
    }

    /// `decisions`: per policy, each `return` of `decide` with the answers it gave and how often,
    /// then the `return`s no scenario reached.
    static func describe(_ files: [DecisionCoverage], voided: [String: [String: Int]] = [:]) -> [String] {
        guard !files.isEmpty else { return [] }
        var out = ["", "decisions (which return of decide answered)"]
        for file in files {
            out.append(
                "  \(file.file)  \(file.reachedReturnCount) of \(file.returnLines.count) returns reached"
                    + (file.neverReached.isEmpty
                        ? "" : "  never reached: line " + file.neverReached.map(String.init).joined(separator: ", ")))
            for (answer, count) in file.counts.sorted(by: { $0.key < $1.key }) {
                let guardrails = voided[TestRun.answerKey(action: answer.action, reason: answer.reason)] ?? [:]
                out.append(
                    "    line \(answer.line)  \(answer.action)" + (answer.reason.map { " (\($0))" } ?? "") + "  ×\(count)"
                        + guardrails.sorted { $0.key < $1.key }.map { "  voided by \($0.key) ×\($0.value)" }.joined())
            }
        }
        return out
    }

    /// `line 7`, or `common/launch.steps.yaml:2` for a step an `include:` brought from another file.
    public static func place(of step: StepResult, in file: String) -> String {
        step.location.file == file ? "line \(step.location.line)" : "\(step.location.file):\(step.location.line)"
    }

    /// "step 21 did not run", "steps 19–21 did not run".
    static func unrunSteps(from first: Int, to last: Int) -> String {
        first == last ? "step \(first) did not run" : "steps \(first)–\(last) did not run"
    }

    func describe(_ step: StepResult, formatter: TimelineFormatter, file: String = "") -> [String] {
        var lines = ["      step \(step.number) (\(Self.place(of: step, in: file))) \(formatter.clock(step.time)) \(step.action)"]
        if let outcome = step.outcome {
            lines.append(
                "        status \(outcome.statusBefore) → \(outcome.statusAfter), \(step.pendingReminders) pending; "
                    + "decision: \(formatter.describe(outcome.decision))" + (outcome.dialogShown ? " [system dialog shown]" : ""))
            if let reason = outcome.decision.reason ?? outcome.proposed?.reason {
                lines.append("        reason: \(TerminalText.inline(reason))")
            }
            for warning in outcome.warnings { lines.append("        warning \(warning)") }
            for error in outcome.errors { lines.append("        error \(error)") }
            if let scheduled = formatter.scheduledReminders(outcome) { lines.append("        " + scheduled) }
            for traceLine in TimelineFormatter.traceLines(outcome.trace) { lines.append("        trace: \(traceLine)") }
            for followUp in outcome.followUps {
                lines.append(
                    "        ↳ \(followUp.event): \(formatter.describe(followUp.decision))"
                        + (followUp.decision.reason.map { " (reason: \(TerminalText.inline($0)))" } ?? ""))
                for warning in followUp.warnings { lines.append("          warning \(warning)") }
                for error in followUp.errors { lines.append("          error \(error)") }
            }
        } else {
            lines.append("        status \(step.status), \(step.pendingReminders) pending")
        }
        for note in step.notes { lines.append("        (\(note))") }
        for failure in step.failures { lines.append("        \(paint("✗", 31)) \(failure)") }
        return lines
    }

    private func paint(_ text: String, _ code: Int) -> String {
        colour ? TerminalText.painted(text, code) : text
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
