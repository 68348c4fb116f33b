import Foundation
import PermitCore

/// `--format json`: a stable shape for machines. Keys are snake_case and only ever added to.
public enum JSONReport {
    /// The run as JSON, for tools: one object per scenario, one per step.
    public static func render(_ run: TestRun) -> String {
        let scenarios: [PolicyValue] = run.reports.map(scenario)
        var fields: [String: PolicyValue] = [
            "scenarios": .list(scenarios),
            "passed": .integer(Int64(run.passedCount)),
            "failed": .integer(Int64(run.failedCount)),
            "input_errors": .integer(Int64(run.inputErrorCount)),
            "skipped": .integer(Int64(run.skippedCount)),
            "not_run": .integer(Int64(run.notRun)),
        ]
        let coverage = run.coverage
        if !coverage.isEmpty {
            fields["coverage"] = .list(
                coverage.map { file in
                    .table([
                        "file": .string(file.file),
                        "percent": .number((file.percent * 10).rounded() / 10),
                        "lines": .integer(Int64(file.executable.count)),
                        "covered": .integer(Int64(file.executable.count - file.missed.count)),
                        "missed": .list(file.missed.map { .integer(Int64($0)) }),
                    ])
                })
        }
        let decisions = run.decisionCoverage
        let voided = run.voidedAnswers
        if !decisions.isEmpty { fields["decisions"] = .list(decisions.map { decisionCoverage($0, voided: voided) }) }
        if run.snapshotsWritten > 0 { fields["snapshots_written"] = .integer(Int64(run.snapshotsWritten)) }
        return PolicyValue.table(fields).prettyJSON
    }

    /// Which `return` of `decide` answered what: `returns` (lines), `never_reached`, and one
    /// entry per answer with its line, action, reason and count.
    static func decisionCoverage(_ file: DecisionCoverage, voided: [String: [String: Int]] = [:]) -> PolicyValue {
        .table([
            "file": .string(file.file),
            "returns": .list(file.returnLines.map { .integer(Int64($0)) }),
            "never_reached": .list(file.neverReached.map { .integer(Int64($0)) }),
            "answers": .list(
                file.counts.sorted { $0.key < $1.key }.map { answer, count in
                    var fields: [String: PolicyValue] = [
                        "line": .integer(Int64(answer.line)), "action": .string(answer.action), "count": .integer(Int64(count)),
                    ]
                    if let reason = answer.reason { fields["reason"] = .string(reason) }
                    if let guardrails = voided[TestRun.answerKey(action: answer.action, reason: answer.reason)] {
                        fields["voided"] = .table(guardrails.mapValues { .integer(Int64($0)) })
                    }
                    return .table(fields)
                }),
        ])
    }

    /// A scenario's snapshot under `--snapshot`: `status` (`matched`, `written`, `missing`,
    /// `differs`, `unusable`), `path`, and the `diff` or `reason` when there is one.
    static func snapshot(_ outcome: GoldenTimeline.Outcome) -> PolicyValue {
        switch outcome {
        case .matched(let path): .table(["status": .string("matched"), "path": .string(path)])
        case .written(let path, let created):
            .table(["status": .string("written"), "path": .string(path), "created": .bool(created)])
        case .missing(let path): .table(["status": .string("missing"), "path": .string(path)])
        case .differs(let path, let diff): .table(["status": .string("differs"), "path": .string(path), "diff": .string(diff)])
        case .unusable(let path, let reason): .table(["status": .string("unusable"), "path": .string(path), "reason": .string(reason)])
        }
    }

    static func scenario(_ report: ScenarioReport) -> PolicyValue {
        var fields: [String: PolicyValue] = [
            "file": .string(report.file.displayPath),
            "name": .string(report.name),
            "passed": .bool(report.passed),
        ]
        if let pack = report.file.pack { fields["pack"] = .string(pack) }
        switch report.verdict {
        case .inputError(let error):
            fields["input_error"] = .string(error.description)
        case .policyFailed(let error, let policy, let count):
            fields["policy_error"] = .string(error.description)
            fields["policy"] = .string(policy)
            fields["scenarios_not_run"] = .integer(Int64(count))
        case .skipped(let reason):
            fields["skipped"] = .string(reason)
        case .ran(let result):
            fields["policy"] = .string(result.policyName)
            fields["steps"] = .list(result.steps.map(step))
            if let aborted = result.abortedAfterStep { fields["aborted_after_step"] = .integer(Int64(aborted)) }
            if let outcome = report.snapshot { fields["snapshot"] = snapshot(outcome) }
        }
        return .table(fields)
    }

    /// One step as a JSON object.
    public static func step(_ step: StepResult) -> PolicyValue {
        var fields: [String: PolicyValue] = [
            "step": .integer(Int64(step.number)),
            // The file the step is written in: the scenario's, or the one an `include:` brought it from.
            "file": .string(step.location.file),
            "line": .integer(Int64(step.location.line)),
            "action": .string(step.action),
            "time": .integer(step.time),
            "status": .string(step.status.rawValue),
            "pending_reminders": .integer(Int64(step.pendingReminders)),
            "passed": .bool(step.passed),
            "failures": .list(step.failures.map(PolicyValue.string)),
        ]
        if let outcome = step.outcome {
            fields["status_before"] = .string(outcome.statusBefore.rawValue)
            fields["decision"] = .table(DecisionFields.of(outcome.decision))
            fields["warnings"] = .list(outcome.warnings.map { .table(["name": .string($0.name), "message": .string($0.message)]) })
            fields["errors"] = .list(outcome.errors.map { .string($0.description) })
            fields["dialog_shown"] = .bool(outcome.dialogShown)
            fields["register_for_remote_notifications"] = .bool(outcome.registerForRemoteNotifications)
            fields["reminders_scheduled"] = .list(
                outcome.remindersScheduled.map { reminder in
                    var entry: [String: PolicyValue] = [
                        "id": .string(reminder.id), "fire_at": .integer(Int64(reminder.fireDate.timeIntervalSince1970)),
                        "sound": .bool(reminder.sound), "alert": .bool(reminder.presentsAlert),
                    ]
                    if let title = reminder.title { entry["title"] = .string(title) }
                    if let body = reminder.body { entry["body"] = .string(body) }
                    if let badge = reminder.badge { entry["badge"] = .integer(Int64(badge)) }
                    if let level = reminder.interruptionLevel { entry["interruption_level"] = .string(level.rawValue) }
                    return .table(entry)
                })
            fields["reminders_removed"] = .list(outcome.remindersRemoved.map(PolicyValue.string))
            if !outcome.trace.isEmpty { fields["trace"] = .string(outcome.trace) }
            if let followUp = outcome.followUps.first {
                fields["follow_up"] = .table([
                    "event": .string(followUp.event.description),
                    "decision": .table(DecisionFields.of(followUp.decision)),
                    "warnings": .list(followUp.warnings.map { .string($0.name) }),
                    "errors": .list(followUp.errors.map { .string($0.description) }),
                    "dialog_shown": .bool(followUp.dialogShown),
                ])
            }
        }
        if !step.earlierOutcomes.isEmpty {
            // Events the app heard during the step before its own (a time change).
            fields["heard_first"] = .list(
                step.earlierOutcomes.map { earlier in
                    var entry: [String: PolicyValue] = [
                        "event": .string(earlier.event.description), "decision": .table(DecisionFields.of(earlier.decision)),
                        "warnings": .list(earlier.warnings.map { .string($0.name) }),
                        "errors": .list(earlier.errors.map { .string($0.description) }),
                    ]
                    if !earlier.trace.isEmpty { entry["trace"] = .string(earlier.trace) }
                    return .table(entry)
                })
        }
        return .table(fields)
    }
}
