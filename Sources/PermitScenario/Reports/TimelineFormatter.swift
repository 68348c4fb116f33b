import Foundation
import PermitCore
import PermitInput

/// Renders outcomes as a timeline for people: one line per step with the clock, the event,
/// the status before → after, the decision with its localised text and reason, warnings,
/// errors, whether the dialog appeared, and the reminders scheduled.
public struct TimelineFormatter: Sendable {
    /// The time the clock column counts from.
    public var start: Int64
    /// The width of the event column: the longest event of the scenario, so a long feature
    /// name does not push one line's status and decision out of line with the rest.
    public var eventWidth = 38
    /// The width of the status column.
    public var statusWidth = 30

    /// A formatter counting from `start`.
    public init(start: Int64) { self.start = start }

    /// A formatter whose columns fit every step of `result`.
    public init(fitting result: ScenarioResult) {
        self.init(start: result.start)
        let outcomes = result.steps.flatMap { $0.earlierOutcomes + ($0.outcome.map { [$0] } ?? []) }
        eventWidth = max(eventWidth, (outcomes.map { $0.event.description.count }.max() ?? 0) + 1)
        statusWidth = max(statusWidth, (outcomes.map { status($0).count }.max() ?? 0) + 1)
    }

    /// One outcome as one timeline line (with the reason, warnings and errors below it).
    public func line(for outcome: Outcome) -> String {
        var parts = [
            pad(clock(outcome.time), 8),
            pad(outcome.event.description, eventWidth),
            pad(status(outcome), statusWidth),
            describe(outcome.decision),
        ]
        if outcome.dialogShown { parts.append("[system dialog shown]") }
        if let granted = outcome.immediateAnswer {
            parts.append("[answered at once without a dialog: \(granted ? "granted" : "not granted")]")
        }
        if outcome.registerForRemoteNotifications { parts.append("[register for remote notifications]") }
        var line = parts.joined(separator: " ")
        if let reason = outcome.decision.reason ?? outcome.proposed?.reason {
            line += "\n" + indent + "reason: \(TerminalText.inline(reason))"
        }
        if let why = outcome.decision.capExempt {
            line += "\n" + indent + "cap exempt: \(TerminalText.inline(why))"
        }
        for warning in outcome.warnings { line += "\n" + indent + "warning \(warning)" }
        for error in outcome.errors { line += "\n" + indent + "error \(error)" }
        if let scheduled = scheduledReminders(outcome) { line += "\n" + indent + scheduled }
        for traceLine in Self.traceLines(outcome.trace) { line += "\n" + indent + "trace: \(traceLine)" }
        if let storage = outcome.storageError { line += "\n" + indent + "storage \(storage)" }
        for followUp in outcome.followUps {
            line +=
                "\n" + indent + "↳ "
                + self.line(for: followUp).split(separator: "\n").map { String($0.drop { $0 == " " }) }
                .joined(separator: "\n" + indent + "  ")
        }
        return line
    }

    /// "scheduled 2 reminder(s) at +1d, +3d; removed 1 (permit.x); posted permit.notify.y now",
    /// or `nil` when the step changed none; shared by `permit run` and `permit test --verbose`
    /// so both say the same.
    public func scheduledReminders(_ outcome: Outcome) -> String? {
        var parts: [String] = []
        if !outcome.remindersScheduled.isEmpty {
            let dates = outcome.remindersScheduled.map { clock(Int64($0.fireDate.timeIntervalSince1970)) }
            let kind = outcome.remindersScheduled.allSatisfy(\.presentsAlert) ? "" : " (badge and sound only)"
            parts.append("scheduled \(outcome.remindersScheduled.count) reminder(s)\(kind) at \(dates.joined(separator: ", "))")
        }
        if !outcome.remindersRemoved.isEmpty {
            parts.append("removed \(outcome.remindersRemoved.count) reminder(s) (\(outcome.remindersRemoved.joined(separator: ", ")))")
        }
        if !outcome.notificationsPosted.isEmpty {
            parts.append("posted \(outcome.notificationsPosted.map(\.id).joined(separator: ", ")) now")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The lines `permit.log` wrote, without blank ones: an empty `trace:` line says nothing.
    public static func traceLines(_ trace: String) -> [Substring] {
        trace.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
    }

    private var indent: String { String(repeating: " ", count: 9) }

    private func status(_ outcome: Outcome) -> String {
        outcome.statusBefore == outcome.statusAfter
            ? outcome.statusAfter.rawValue
            : "\(outcome.statusBefore) → \(outcome.statusAfter)"
    }

    /// `+1d02h`, `+5m`, `+0s`: the time since the start, compact.
    public func clock(_ time: Int64) -> String {
        var seconds = max(0, time - start)
        let days = seconds / 86400
        seconds %= 86400
        let hours = seconds / 3600, minutes = (seconds % 3600) / 60, rest = seconds % 60
        var text = "+"
        if days > 0 { text += "\(days)d" }
        if hours > 0 || days > 0 { text += String(format: days > 0 ? "%02dh" : "%dh", hours) }
        if days == 0 { text += hours > 0 ? String(format: "%02dm", minutes) : "\(minutes)m" }
        if days == 0, hours == 0, minutes == 0 { text = "+\(rest)s" }
        return text
    }

    /// A decision in a few words: the action and its localised texts, and its web link
    /// (`link "More about notifications" → https://...`) when it has one; then its row
    /// (`+ row settings_prompt inline ...`).
    public func describe(_ decision: Decision) -> String {
        let words = describeWithLink(decision.action)
        guard let row = decision.row else { return words }
        return "\(words) + row \(describeWithLink(row))"
    }

    private func describeWithLink(_ action: Decision.Action) -> String {
        let words = describe(action)
        guard let link = action.link else { return words }
        return "\(words) link \"\(link.text)\" → \(link.address)"
    }

    private func describe(_ action: Decision.Action) -> String {
        switch action {
        case .none:
            return "none"
        case .softPrompt(let prompt):
            if prompt.presentation == .inline { return "soft_prompt inline \"\(prompt.title)\" [\(prompt.accept)]" }
            return "soft_prompt \"\(prompt.title)\" [\(prompt.accept) | \(prompt.decline ?? .plain(""))]"
        case .requestPermission(let options):
            return "request_permission \(options.map(\.rawValue).joined(separator: ","))"
        case .settingsPrompt(let prompt):
            let open = prompt.open.map { "\($0)" }
            if prompt.presentation == .inline {
                // A row without an open text is its own button: the whole row opens Settings.
                return "settings_prompt inline \"\(prompt.title)\" → \(prompt.deepLink.rawValue) [\(open ?? "the whole row")]"
            }
            return "settings_prompt \"\(prompt.title)\" → \(prompt.deepLink.rawValue) [\(open ?? "") | \(prompt.cancel ?? .plain(""))]"
        case .openSettings(let deepLink):
            return "open_settings → \(deepLink.rawValue)"
        case .inform(let page):
            if page.isLabel { return "inform label \"\(page.title)\"" }
            let inline = page.presentation == .inline ? " inline" : ""
            let button = "\(page.button ?? .plain(""))"
            guard let open = page.open else { return "inform\(inline) \"\(page.title)\" [\(button)]" }
            return "inform\(inline) \"\(page.title)\" [\(button) | \(open) → \(page.deepLink.rawValue)]"
        case .dismiss:
            return "dismiss"
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
