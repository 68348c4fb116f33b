import Foundation
import PermitCore
import PermitInput

/// A step's expectations against what happened, one function per kind of expectation. Each
/// returns the failures in words; a step passes when none has any.
enum ExpectationCheck {
    /// Every expectation of the step, plus the rule that an unexpected warning or policy error
    /// fails it.
    static func failures(
        _ expected: Scenario.Expectations, against result: StepResult, ledger: Ledger, timeZone: TimeZone
    ) -> [String] {
        let outcome = result.outcome
        var failures: [String] = []
        if let decision = expected.decision, let outcome { failures += self.decision(decision, outcome) }
        if let reason = expected.reason, let outcome, failures.isEmpty { failures += self.reason(reason, outcome) }
        if expected.followUp != nil || expected.followUpReason != nil { failures += followUp(expected, outcome) }
        if let screen = expected.screen, result.screen != screen {
            failures.append("expected \(screen) on screen, got \(result.screen)")
        }
        if let status = expected.status, result.status != status {
            failures.append("expected status \(status), got \(result.status)")
        }
        // What the app heard before the step's own event (a time change) counts with it.
        let heard = result.earlierOutcomes + (outcome.map { [$0] } ?? [])
        failures += warnings(expected.warnings, heard.flatMap(\.warnings))
        failures += errors(expected.error, heard.flatMap(\.errors))
        failures += followUps(heard.flatMap(\.followUps))
        if let dialog = expected.dialog, (result.externalDialogShown ?? outcome?.dialogShown ?? false) != dialog {
            failures.append(dialog ? "expected the system dialog to appear, it did not" : "expected no system dialog, but it appeared")
        }
        if let times = expected.pendingLocalTimes {
            if result.pendingLocalTimes != times {
                failures.append(
                    "expected pending reminders at \(times.isEmpty ? "none" : times.joined(separator: ", ")) "
                        + "(\(timeZone.permitIdentifier)), got \(result.pendingLocalTimes.isEmpty ? "none" : result.pendingLocalTimes.joined(separator: ", "))"
                )
            }
        } else if let pending = expected.pending, result.pendingReminders != pending {
            failures.append("expected \(pending) pending reminder(s), got \(result.pendingReminders)")
        }
        if let expectedRegistration = expected.remoteRegistration {
            let registers = outcome?.registerForRemoteNotifications ?? false
            let unregisters = outcome?.unregisterForRemoteNotifications ?? false
            let told = registers ? "to register" : unregisters ? "to unregister" : "neither to register nor to unregister"
            switch expectedRegistration {
            case .register where !registers:
                failures.append("expected the host to be told to register for remote notifications; it was told \(told)")
            case .nothing where registers || unregisters:
                failures.append("expected no remote-notification registration; the host was told \(told)")
            case .unregister where !unregisters:
                failures.append("expected the host to be told to unregister from remote notifications; it was told \(told)")
            default: break
            }
        }
        if let reminders = expected.reminders {
            failures += self.reminders(reminders, outcome?.remindersScheduled ?? [], timeZone: timeZone)
        }
        if let notified = expected.notified { failures += self.notified(notified, result.notified) }
        if let trace = expected.trace { failures += self.trace(trace, heard.flatMap(traceLines)) }
        failures += self.ledger(expected.ledger, ledger)
        return failures
    }

    /// `expect`: an action name, or decision fields; a wrong action is reported alone, since
    /// it makes every other field wrong too.
    static func decision(_ expected: Scenario.ExpectedDecision, _ outcome: Outcome) -> [String] {
        let reason = (outcome.decision.reason ?? outcome.proposed?.reason).map { " (reason: \($0))" } ?? ""
        switch expected {
        case .action(let name):
            guard outcome.decision.action.name != name else { return [] }
            return ["expected \(name), got \(describeAction(outcome))\(reason)"]
        case .fields(let fields):
            let actual = DecisionFields.of(outcome.decision)
            if let action = fields["action"], actual["action"] != action {
                return ["expected \(action.description.trimmingCharacters(in: ["\""])), got \(describeAction(outcome))\(reason)"]
            }
            return fields.sorted(by: { $0.key < $1.key }).flatMap { key, value -> [String] in
                guard actual[key] != value else { return [] }
                if key == "rows", case .list(let wanted) = value { return rows(wanted, actual[key]) }
                if key == "row" { return row(value, actual[key]) }
                let got = actual[key].map(\.description) ?? "nothing"
                return ["decision.\(key): expected \(value), got \(got)\(key == "action" ? reason : "")"]
            }
        }
    }

    /// `row`: `none`, or the fields given (the rest of the row is not matched), each failure
    /// named in the row (`decision.row.title`); a row of another action is reported alone.
    static func row(_ wanted: PolicyValue, _ actual: PolicyValue?) -> [String] {
        guard case .table(let want) = wanted else {
            guard case .table(let have)? = actual else { return [] }
            return ["decision.row: expected none, got a \(have["action"].map(\.description) ?? "row") row"]
        }
        guard case .table(let have)? = actual else {
            return ["decision.row: expected \(want["action"].map { "a \($0) row" } ?? "a row"), got none"]
        }
        if let action = want["action"], have["action"] != action {
            return ["decision.row.action: expected \(action), got \(have["action"].map(\.description) ?? "nothing")"]
        }
        return want.sorted(by: { $0.key < $1.key }).flatMap { key, value -> [String] in
            guard have[key] != value else { return [] }
            if key == "rows", case .list(let rows) = value {
                return self.rows(rows, have[key]).map { "decision.row." + $0.dropFirst("decision.".count) }
            }
            return ["decision.row.\(key): expected \(value), got \(have[key].map(\.description) ?? "nothing")"]
        }
    }

    /// `rows`: the first rows that differ, by place and field, then a difference in number;
    /// a status list of a dozen rows printed whole would hide the one that changed.
    static func rows(_ wanted: [PolicyValue], _ actual: PolicyValue?) -> [String] {
        guard case .list(let got)? = actual else {
            return ["decision.rows: expected \(wanted.count) rows, got \(actual.map(\.description) ?? "none")"]
        }
        var failures: [String] = []
        for (index, (want, have)) in zip(wanted, got).enumerated() where want != have {
            for field in ["name", "value"] {
                guard case .table(let w) = want, case .table(let h) = have, w[field] != h[field] else { continue }
                let expected = w[field].map(\.description) ?? "nothing"
                failures.append(
                    "decision.rows[\(index + 1)].\(field): expected \(expected), got \(h[field].map(\.description) ?? "nothing")")
            }
        }
        if wanted.count != got.count {
            let extra = (wanted.count < got.count ? got[wanted.count...] : wanted[got.count...]).map(\.description)
            failures.append(
                "decision.rows: expected \(wanted.count) rows, got \(got.count) ("
                    + (wanted.count < got.count ? "also " : "missing ") + extra.joined(separator: ", ") + ")")
        }
        return failures
    }

    /// `expect_followup`: the decision the policy made when iOS answered the step's request at
    /// once (the last follow-up); a step whose request showed a dialog, or made none, has no
    /// follow-up to match, which fails with what happened instead.
    static func followUp(_ expected: Scenario.Expectations, _ outcome: Outcome?) -> [String] {
        guard let followUp = outcome?.followUps.last else {
            let what =
                outcome.map { $0.dialogShown ? "the system dialog appeared" : "the decision was \(describeAction($0))" } ?? "no event"
            return ["expect_followup: expected a decision after an answer iOS gave at once, but there was none (\(what))"]
        }
        var failures = expected.followUp.map { decision($0, followUp) } ?? []
        if let reason = expected.followUpReason, failures.isEmpty { failures += self.reason(reason, followUp) }
        return failures.map { "expect_followup: \($0)" }
    }

    /// `expect_warning`: exactly these guardrails warned; without it, any warning fails.
    static func warnings(_ expected: [String]?, _ warnings: [GuardrailWarning]) -> [String] {
        guard let names = expected else { return warnings.map { "unexpected warning \($0)" } }
        guard names.sorted() != warnings.map(\.name).sorted() else { return [] }
        let got = warnings.isEmpty ? "none" : warnings.map(\.description).joined(separator: "; ")
        return ["expected warning \(names.joined(separator: ", ")), got \(got)"]
    }

    /// `expect_error`: a policy error (containing a piece of text); without it, any error fails.
    static func errors(_ expected: Scenario.ExpectedError?, _ errors: [PolicyError]) -> [String] {
        switch expected {
        case .none:
            return errors.map { "unexpected policy error: \($0)" }
        case .any:
            return errors.isEmpty ? ["expected a policy error, got none"] : []
        case .matching(let match):
            guard !errors.contains(where: { match.matches($0.description) }) else { return [] }
            let got = errors.isEmpty ? "none" : errors.map(\.description).joined(separator: "; ")
            return ["expected a policy error \(describe(match)), got \(got)"]
        }
    }

    /// `expect: { reason: ... }`: the decision's reason contains the piece (or matches the
    /// `/pattern/`), as `expect_error` matches an error.
    static func reason(_ expected: TextMatch, _ outcome: Outcome) -> [String] {
        guard let reason = outcome.decision.reason else { return ["decision.reason: expected \(describe(expected)), got nothing"] }
        return expected.matches(reason) ? [] : ["decision.reason: expected \(describe(expected)), got \"\(reason)\""]
    }

    /// `expect_trace`: each entry matches a line the policy logged, in the order written (other
    /// lines may come between); `[]` expects that it logged nothing.
    static func trace(_ expected: [TextMatch], _ lines: [String]) -> [String] {
        let got = lines.isEmpty ? "nothing" : lines.map { "\"\($0)\"" }.joined(separator: ", ")
        guard !expected.isEmpty else { return lines.isEmpty ? [] : ["expected the policy to log nothing, it logged \(got)"] }
        var rest = lines[...]
        for match in expected {
            guard let index = rest.firstIndex(where: match.matches) else {
                let order = rest.count == lines.count ? "" : " after the entries before it"
                return ["expected a trace line \(describe(match))\(order), the policy logged \(got)"]
            }
            rest = rest[(index + 1)...]
        }
        return []
    }

    /// The lines an event's handling logged, its follow-up's (an immediate answer) after them.
    static func traceLines(_ outcome: Outcome) -> [String] {
        ([outcome] + outcome.followUps).flatMap { TimelineFormatter.traceLines($0.trace).map(String.init) }
    }

    /// "containing \"piece\"" or "matching /pattern/".
    static func describe(_ match: TextMatch) -> String {
        switch match {
        case .containing: "containing \(match)"
        case .pattern: "matching \(match)"
        }
    }

    /// What followed an immediate answer may not warn or err: no expectation covers it.
    static func followUps(_ followUps: [Outcome]) -> [String] {
        followUps.flatMap { followUp in
            followUp.warnings.map { "unexpected warning after the immediate answer: \($0)" }
                + followUp.errors.map { "unexpected policy error after the immediate answer: \($0)" }
        }
    }

    /// `expect_reminders`: how many the step scheduled, whether they show an alert, and at
    /// which local wall-clock times.
    static func reminders(
        _ expected: Scenario.ExpectedReminders, _ scheduled: [ScheduledReminder], timeZone: TimeZone
    ) -> [String] {
        var failures: [String] = []
        if let each = expected.each { return reminderList(each, scheduled, timeZone: timeZone) }
        if let times = expected.localTimes {
            let actual = scheduled.map { localTime(of: $0.fireDate, in: timeZone) }
            if actual != times {
                failures.append(
                    "expected reminders at \(times.joined(separator: ", ")) (\(timeZone.identifier)), "
                        + "got \(actual.isEmpty ? "none" : actual.joined(separator: ", "))")
            }
        }
        if let level = expected.interruptionLevel {
            let name = level?.rawValue ?? "none"
            if scheduled.isEmpty {
                failures.append("expected reminders with interruption level \(name), but none were scheduled")
            } else if let wrong = scheduled.first(where: { $0.interruptionLevel != level }) {
                failures.append(
                    "expected reminders with interruption level \(name), "
                        + "but \(wrong.id) has \(wrong.interruptionLevel?.rawValue ?? "none")")
            }
        }
        if let count = expected.count, scheduled.count != count {
            failures.append("expected \(count) reminder(s) scheduled, got \(scheduled.count)")
        }
        if let alert = expected.alert {
            let wanted = alert ? "with an alert" : "with badge and sound only"
            if scheduled.isEmpty {
                failures.append("expected reminders \(wanted), but none were scheduled")
            } else if let wrong = scheduled.first(where: { $0.presentsAlert != alert }) {
                failures.append(
                    "expected reminders \(wanted), "
                        + "but \(wrong.id) \(wrong.presentsAlert ? "shows an alert" : "is badge and sound only")")
            }
        }
        return failures
    }

    /// The list form of `expect_reminders`: exactly these reminders, soonest first, each listed
    /// field equal (texts after localisation, the time on the device's wall clock).
    static func reminderList(
        _ expected: [Scenario.ExpectedReminder], _ scheduled: [ScheduledReminder], timeZone: TimeZone
    ) -> [String] {
        let sorted = scheduled.sorted { $0.fireDate < $1.fireDate }
        guard sorted.count == expected.count else {
            let got = sorted.map { localTime(of: $0.fireDate, in: timeZone) }
            return [
                "expected \(expected.count) reminder(s) scheduled, got \(sorted.count)"
                    + (got.isEmpty ? "" : " (at \(got.joined(separator: ", ")))")
            ]
        }
        var failures: [String] = []
        for (index, (want, got)) in zip(expected, sorted).enumerated() {
            let label = "reminder \(index + 1) (line \(want.line))"
            func differs(_ field: String, _ wanted: String?, _ actual: String?) {
                guard let wanted, wanted != actual else { return }
                failures.append("\(label) \(field): expected \"\(wanted)\", got \(actual.map { "\"\($0)\"" } ?? "nothing")")
            }
            differs("at", want.at, localTime(of: got.fireDate, in: timeZone))
            differs("title", want.title, got.title)
            differs("body", want.body, got.body)
            differs("id", want.id, got.id)
            if let alert = want.alert, alert != got.presentsAlert {
                failures.append(
                    "\(label): expected \(alert ? "an alert" : "badge and sound only"), "
                        + "got \(got.presentsAlert ? "an alert" : "badge and sound only")")
            }
        }
        return failures
    }

    /// `expect_settings`: each listed setting has that value on the device.
    static func settings(
        _ expected: [NotificationSettings.Setting: SettingValue], _ actual: NotificationSettings
    ) -> [String] {
        expected.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { setting, value in
            actual[setting] == value ? nil : "expected setting \(setting.rawValue) \(value.rawValue), got \(actual[setting].rawValue)"
        }
    }

    /// `expect_ledger`: each dotted path holds the value (numbers by value, nil for missing).
    static func ledger(
        _ expected: [(path: String, value: PolicyValue?, location: SourceLocation)], _ ledger: Ledger
    ) -> [String] {
        guard !expected.isEmpty else { return [] }
        let table = LedgerPaths.table(of: ledger)
        return expected.compactMap { path, value, _ in
            let actual = LedgerPaths.value(at: path, in: table)
            guard !LedgerPaths.matches(actual, value) else { return nil }
            return "ledger.\(path): expected \(value?.description ?? "nil"), got \(actual?.description ?? "nil")"
        }
    }

    static func describeAction(_ outcome: Outcome) -> String {
        let name = outcome.decision.action.name
        guard outcome.decision.action == .none, let proposed = outcome.proposed, proposed.action != .none else { return name }
        let warnings = outcome.warnings.map(\.name)
        return "none (the policy proposed \(proposed.action.name)" + (warnings.isEmpty ? "" : "; " + warnings.joined(separator: ", ")) + ")"
    }

    /// `yyyy-MM-dd HH:mm` on the wall clock of `timeZone`: how a scenario names a fire date.
    static func localTime(of date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "??" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
    }
}
