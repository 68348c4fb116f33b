import Foundation
import PermitCore

/// What one policy did to the population.
public struct PolicyResult: Sendable {
    /// The policy's name.
    public let name: String
    /// The policy file.
    public let file: String
    /// How many users were simulated.
    public let users: Int
    /// How many days.
    public let days: Int
    /// Share of all users opted in (authorized or provisional, app installed) at the end of each day.
    public let optInByDay: [Double]
    /// Share of all users denied at the end of each day.
    public let deniedByDay: [Double]
    /// Share of users without the app at the end.
    public let uninstalledAtEnd: Double
    /// Soft prompts shown, per user.
    public let softPromptsPerUser: Double
    /// System dialogs shown, per user.
    public let systemDialogsPerUser: Double
    /// Settings prompts shown, per user.
    public let settingsPromptsPerUser: Double
    /// Median hours from first launch to first opt-in, over the users who opted in.
    public let medianHoursToOptIn: Double?
    /// Users who opted in at some point.
    public let usersOptedIn: Int
    /// App deletions.
    public let uninstalls: Int
    /// Installs after a deletion.
    public let reinstalls: Int
    /// Events sent to the engine.
    public let events: Int
    /// Policy errors by kind (`runtime`, `invalid_decision`, ...).
    public let errors: [String: Int]
    /// The first policy error, to start debugging from.
    public let firstError: String?
    /// Guardrail warnings by name (`prompt-cap`, ...).
    public let warnings: [String: Int]
    /// How the users answered: the measured shares, to compare with the model.
    public let answers: Answers

    /// Counts of each prompt and each answer.
    public struct Answers: Sendable {
        /// Soft prompts shown.
        public let softPrompts: Int
        /// Soft prompts accepted.
        public let softAccepted: Int
        /// Soft prompts declined.
        public let softDeclined: Int
        /// Soft prompts dismissed.
        public let softDismissed: Int
        /// System dialogs shown without a soft prompt before them.
        public let dialogsCold: Int
        /// Of those, allowed.
        public let dialogsColdAllowed: Int
        /// System dialogs right after an accepted soft prompt.
        public let dialogsAfterAccept: Int
        /// Of those, allowed.
        public let dialogsAfterAcceptAllowed: Int
        /// Settings prompts shown.
        public let settingsPrompts: Int
        /// Times the user opened Settings from one.
        public let settingsOpened: Int
        /// Times the user then switched notifications on.
        public let settingsEnabled: Int
    }

    init(name: String, file: String, days: Int, tally: Tally) {
        let users = max(1, tally.users)
        func share(_ count: Int) -> Double { Double(count) / Double(users) }
        self.name = name
        self.file = file
        self.users = tally.users
        self.days = days
        optInByDay = tally.optedIn.map(share)
        deniedByDay = tally.denied.map(share)
        uninstalledAtEnd = share(tally.uninstalledAtEnd)
        softPromptsPerUser = share(tally.softPrompts)
        systemDialogsPerUser = share(tally.systemDialogs)
        settingsPromptsPerUser = share(tally.settingsPrompts)
        let sorted = tally.secondsToOptIn.sorted()
        if sorted.isEmpty {
            medianHoursToOptIn = nil
        } else {
            let middle = sorted.count / 2
            let seconds = sorted.count % 2 == 1
                ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
            medianHoursToOptIn = seconds / 3600
        }
        usersOptedIn = sorted.count
        uninstalls = tally.uninstalls
        reinstalls = tally.reinstalls
        events = tally.events
        errors = tally.errors
        firstError = tally.firstError
        warnings = tally.warnings
        answers = Answers(
            softPrompts: tally.softPrompts, softAccepted: tally.softAccepted, softDeclined: tally.softDeclined,
            softDismissed: tally.softDismissed, dialogsCold: tally.dialogsCold,
            dialogsColdAllowed: tally.dialogsColdAllowed, dialogsAfterAccept: tally.dialogsAfterAccept,
            dialogsAfterAcceptAllowed: tally.dialogsAfterAcceptAllowed, settingsPrompts: tally.settingsPrompts,
            settingsOpened: tally.settingsOpened, settingsEnabled: tally.settingsEnabled)
    }

    /// Opt-in at the end of `day` (1-based).
    public func optIn(day: Int) -> Double { optInByDay[day - 1] }
    /// Share of users denied at the end of the run.
    public var deniedAtEnd: Double { deniedByDay.last ?? 0 }
}

/// The whole comparison.
public struct SimulationResult: Sendable {
    /// The user model's name.
    public let model: String
    /// How many users.
    public let users: Int
    /// How many days.
    public let days: Int
    /// The seed.
    public let seed: UInt64
    /// One result per policy, in the order given.
    public let policies: [PolicyResult]
    /// Wall-clock time of the run (not in the JSON, which must be identical for a seed).
    public let elapsedSeconds: Double

    /// The days the summary shows: 1, 7 and the last (those that exist, once each).
    public var reportedDays: [Int] {
        var result: [Int] = []
        for day in [1, 7, days] where day >= 1 && day <= days && !result.contains(day) { result.append(day) }
        return result
    }

    // MARK: JSON

    /// A stable shape for machines: snake_case keys, sorted; shares rounded to 6 decimals.
    public func json() -> String {
        func round(_ value: Double) -> PolicyValue { .number((value * 1_000_000).rounded() / 1_000_000) }
        func counts(_ dictionary: [String: Int]) -> PolicyValue {
            .table(dictionary.mapValues { .integer(Int64($0)) })
        }
        let policies: [PolicyValue] = policies.map { policy in
            var optIn: [String: PolicyValue] = [:]
            for day in reportedDays { optIn["day_\(day)"] = round(policy.optIn(day: day)) }
            let a = policy.answers
            var fields: [String: PolicyValue] = [
                "name": .string(policy.name),
                "file": .string(policy.file),
                "opt_in": .table(optIn),
                "opt_in_by_day": .list(policy.optInByDay.map(round)),
                "denied": round(policy.deniedAtEnd),
                "prompts_per_user": .table([
                    "soft": round(policy.softPromptsPerUser), "system": round(policy.systemDialogsPerUser),
                    "settings": round(policy.settingsPromptsPerUser),
                ]),
                "users_opted_in": .integer(Int64(policy.usersOptedIn)),
                "uninstalls": .integer(Int64(policy.uninstalls)),
                "uninstalled_at_end": round(policy.uninstalledAtEnd),
                "reinstalls": .integer(Int64(policy.reinstalls)),
                "events": .integer(Int64(policy.events)),
                "policy_errors": counts(policy.errors),
                "guardrail_warnings": counts(policy.warnings),
                "answers": .table([
                    "soft_prompt": .table([
                        "shown": .integer(Int64(a.softPrompts)), "accepted": .integer(Int64(a.softAccepted)),
                        "declined": .integer(Int64(a.softDeclined)), "dismissed": .integer(Int64(a.softDismissed)),
                    ]),
                    "system_dialog": .table([
                        "cold": .integer(Int64(a.dialogsCold)), "cold_allowed": .integer(Int64(a.dialogsColdAllowed)),
                        "after_soft_accept": .integer(Int64(a.dialogsAfterAccept)),
                        "after_soft_accept_allowed": .integer(Int64(a.dialogsAfterAcceptAllowed)),
                    ]),
                    "settings_prompt": .table([
                        "shown": .integer(Int64(a.settingsPrompts)), "opened": .integer(Int64(a.settingsOpened)),
                        "enabled": .integer(Int64(a.settingsEnabled)),
                    ]),
                ]),
            ]
            if let hours = policy.medianHoursToOptIn { fields["median_hours_to_opt_in"] = round(hours) }
            if let first = policy.firstError { fields["first_policy_error"] = .string(first) }
            return .table(fields)
        }
        return PolicyValue.table([
            "model": .string(model),
            "users": .integer(Int64(users)),
            "days": .integer(Int64(days)),
            "seed": .string(String(seed)),
            "policies": .list(policies),
        ]).prettyJSON
    }

    // MARK: Text

    /// The policies side by side, one column each.
    public func text() -> String {
        var rows: [(String, [String])] = []
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        func perUser(_ value: Double) -> String { String(format: "%.2f", value) }
        rows.append(("", policies.map(\.name)))
        for day in reportedDays {
            rows.append(("opt-in, day \(day)", policies.map { percent($0.optIn(day: day)) }))
        }
        rows.append(("denied, day \(days)", policies.map { percent($0.deniedAtEnd) }))
        rows.append(("soft prompts / user", policies.map { perUser($0.softPromptsPerUser) }))
        rows.append(("system dialogs / user", policies.map { perUser($0.systemDialogsPerUser) }))
        rows.append(("settings prompts / user", policies.map { perUser($0.settingsPromptsPerUser) }))
        rows.append(("median time to opt-in", policies.map { $0.medianHoursToOptIn.map { Self.duration(hours: $0) } ?? "—" }))
        rows.append(("uninstalls", policies.map { "\($0.uninstalls)" }))
        rows.append(("uninstalled, day \(days)", policies.map { percent($0.uninstalledAtEnd) }))
        rows.append(("policy errors", policies.map { "\($0.errors.values.reduce(0, +))" }))
        for kind in Set(policies.flatMap(\.errors.keys)).sorted() {
            rows.append(("  \(kind)", policies.map { "\($0.errors[kind] ?? 0)" }))
        }
        rows.append(("guardrail warnings", policies.map { "\($0.warnings.values.reduce(0, +))" }))
        for name in Set(policies.flatMap(\.warnings.keys)).sorted() {
            rows.append(("  \(name)", policies.map { "\($0.warnings[name] ?? 0)" }))
        }
        let labelWidth = rows.map(\.0.count).max() ?? 0
        let columnWidths = policies.indices.map { column in
            max(10, rows.map { $0.1[column].count }.max() ?? 0)
        }
        var lines = ["\(users) users × \(days) days, model \(model), seed \(seed)", ""]
        for (label, cells) in rows {
            var line = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            for (cell, width) in zip(cells, columnWidths) {
                line += "  " + String(repeating: " ", count: max(0, width - cell.count)) + cell
            }
            lines.append(line)
        }
        for policy in policies {
            if let first = policy.firstError { lines.append("\nfirst policy error of \(policy.name): \(first)") }
        }
        return lines.joined(separator: "\n")
    }

    /// `45 min`, `5.2 h`, `3.1 d`.
    static func duration(hours: Double) -> String {
        if hours < 1 { return String(format: "%.0f min", hours * 60) }
        if hours < 48 { return String(format: "%.1f h", hours) }
        return String(format: "%.1f d", hours / 24)
    }
}
