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
            fields["coverage"] = .list(coverage.map { file in
                .table([
                    "file": .string(file.file),
                    "percent": .number((file.percent * 10).rounded() / 10),
                    "lines": .integer(Int64(file.executable.count)),
                    "covered": .integer(Int64(file.executable.count - file.missed.count)),
                    "missed": .list(file.missed.map { .integer(Int64($0)) }),
                ])
            })
        }
        return PolicyValue.table(fields).prettyJSON
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
        }
        return .table(fields)
    }

    /// One step as a JSON object.
    public static func step(_ step: StepResult) -> PolicyValue {
        var fields: [String: PolicyValue] = [
            "step": .integer(Int64(step.number)),
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
            fields["reminders_scheduled"] = .list(outcome.remindersScheduled.map { reminder in
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
        return .table(fields)
    }
}
