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
    /// Installed users in each `Reach` at the end of each day (index 0 is day 1).
    public let reachByDay: [ReachCounts]
    /// Share of users without the app at the end.
    public let uninstalledAtEnd: Double
    /// Soft prompts shown, per user.
    public let softPromptsPerUser: Double
    /// System dialogs shown, per user.
    public let systemDialogsPerUser: Double
    /// Settings prompts shown, per user.
    public let settingsPromptsPerUser: Double
    /// Median hours from first launch to the first time the user could receive alerts, over the
    /// users who ever could.
    public let medianHoursToAlerts: Double?
    /// Users who could receive alerts at some point.
    public let usersReachedAlerts: Int
    /// App deletions.
    public let uninstalls: Int
    /// Installs after a deletion.
    public let reinstalls: Int
    /// Events sent to the engine.
    public let events: Int
    /// Sessions the users had (the app opened, cold or from the background).
    public let sessions: Int
    /// The sessions that were cold launches: a new process of the app, where the policy started
    /// over (the model's `cold_launch_share`, and each install's first session).
    public let coldLaunches: Int
    /// Policy errors by kind (`runtime`, `invalid_decision`, ...).
    public let errors: [String: Int]
    /// The first policy error, to start debugging from.
    public let firstError: String?
    /// Guardrail warnings by name (`prompt-cap`, ...).
    public let warnings: [String: Int]
    /// How the users answered: the measured shares, to compare with the model.
    public let answers: Answers
    /// The same figures for the users of each arm of each experiment the policy declares,
    /// sorted by experiment and arm; empty without experiments (and inside an arm's result).
    public let arms: [ArmResult]

    /// One experiment arm's users and what the policy did to them.
    public struct ArmResult: Sendable {
        /// The experiment's name.
        public let experiment: String
        /// The arm's name.
        public let arm: String
        /// The arm's users' figures (`users` is how many were in the arm).
        public let result: PolicyResult
    }

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
        /// Inline rows (`presentation = "inline"`) seen: not prompts, they annoy no one.
        public let inlineShown: Int
        /// Times a user acted on one (accept, open).
        public let inlineActed: Int
        /// Quiet (provisional) users who kept quiet delivery when they chose.
        public let quietKept: Int
        /// Quiet users who turned notifications off.
        public let quietTurnedOff: Int
        /// Quiet users who had them delivered prominently.
        public let quietMadeProminent: Int
        /// The app's own events the users sent (`events:` in the model), by name.
        public let appEvents: [String: Int]
        /// Times a user's device changed time zone (`travel:` in the model).
        public let timeZoneChanges: Int
    }

    init(name: String, file: String, days: Int, tally: Tally) {
        let users = max(1, tally.users)
        func share(_ count: Int) -> Double { Double(count) / Double(users) }
        self.name = name
        self.file = file
        self.users = tally.users
        self.days = days
        reachByDay = tally.reachByDay
        uninstalledAtEnd = share(tally.uninstalledAtEnd)
        softPromptsPerUser = share(tally.softPrompts)
        systemDialogsPerUser = share(tally.systemDialogs)
        settingsPromptsPerUser = share(tally.settingsPrompts)
        let sorted = tally.secondsToAlerts.sorted()
        if sorted.isEmpty {
            medianHoursToAlerts = nil
        } else {
            let middle = sorted.count / 2
            let seconds =
                sorted.count % 2 == 1
                ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
            medianHoursToAlerts = seconds / 3600
        }
        usersReachedAlerts = sorted.count
        uninstalls = tally.uninstalls
        reinstalls = tally.reinstalls
        events = tally.events
        sessions = tally.sessions
        coldLaunches = tally.coldLaunches
        errors = tally.errors
        firstError = tally.firstError
        warnings = tally.warnings
        answers = Answers(
            softPrompts: tally.softPrompts, softAccepted: tally.softAccepted, softDeclined: tally.softDeclined,
            softDismissed: tally.softDismissed, dialogsCold: tally.dialogsCold,
            dialogsColdAllowed: tally.dialogsColdAllowed, dialogsAfterAccept: tally.dialogsAfterAccept,
            dialogsAfterAcceptAllowed: tally.dialogsAfterAcceptAllowed, settingsPrompts: tally.settingsPrompts,
            settingsOpened: tally.settingsOpened, settingsEnabled: tally.settingsEnabled,
            inlineShown: tally.inlineShown, inlineActed: tally.inlineActed,
            quietKept: tally.quietKept, quietTurnedOff: tally.quietTurnedOff,
            quietMadeProminent: tally.quietMadeProminent, appEvents: tally.appEvents,
            timeZoneChanges: tally.timeZoneChanges)
        arms = tally.arms.sorted { ($0.key.experiment, $0.key.arm) < ($1.key.experiment, $1.key.arm) }.map { key, armTally in
            ArmResult(
                experiment: key.experiment, arm: key.arm,
                result: PolicyResult(name: "\(name) \(key.experiment)=\(key.arm)", file: file, days: days, tally: armTally))
        }
    }

    /// Users in `reach` at the end of `day` (1-based); `nil` counts those without the app.
    public func count(_ reach: Reach?, day: Int) -> Int {
        let counts = reachByDay[day - 1]
        guard let reach else { return users - counts.installed }
        return counts[reach]
    }

    /// Share of all users in `reach` at the end of `day` (1-based); `nil`: without the app.
    public func share(_ reach: Reach?, day: Int) -> Double {
        Double(count(reach, day: day)) / Double(max(1, users))
    }

    /// The 95% Wilson interval of the share in `reach` (`nil`: without the app) at the end of `day`.
    public func interval(_ reach: Reach?, day: Int) -> Interval {
        Confidence.wilson(successes: count(reach, day: day), of: users)
    }

    /// This policy's share in `reach` at the end of `day` minus `other`'s, with its interval
    /// (Newcombe's, from the two Wilson intervals; conservative for policies run on the same users).
    public func difference(_ reach: Reach?, day: Int, from other: PolicyResult) -> Difference {
        Confidence.difference((count(reach, day: day), users), minus: (other.count(reach, day: day), other.users))
    }

    /// The headline at the end of each day: the share of all users who can receive alerts.
    public var canReceiveAlertsByDay: [Double] { (0..<days).map { share(.fullAlerts, day: $0 + 1) } }
    /// The share of all users with quiet delivery at the end of each day.
    public var quietByDay: [Double] { (0..<days).map { share(.quiet, day: $0 + 1) } }
    /// Share of users denied at the end of the run.
    public var deniedAtEnd: Double { share(.denied, day: days) }
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
    /// What makes a policy's figures mean less than they seem (a feature the model never
    /// opens, a policy that prompted nobody): in the report, the JSON, and on stderr.
    public let warnings: [SimulationWarning]
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
    /// `adding` puts more top-level keys in (`sensitivity`).
    public func json(adding extra: [String: PolicyValue] = [:]) -> String {
        let round = Self.rounded
        func counts(_ dictionary: [String: Int]) -> PolicyValue {
            .table(dictionary.mapValues { .integer(Int64($0)) })
        }
        let policies: [PolicyValue] = policies.enumerated().map { index, policy in
            let first = self.policies[0]
            let (alerts, reach, changes) = reachJSON(policy, from: first)
            var fields: [String: PolicyValue] = [
                "name": .string(policy.name),
                "file": .string(policy.file),
                "can_receive_alerts": alerts,
                "can_receive_alerts_by_day": .list(policy.canReceiveAlertsByDay.map(round)),
                "quiet_by_day": .list(policy.quietByDay.map(round)),
                "reach": reach,
                "denied": round(policy.deniedAtEnd),
                "prompts_per_user": .table([
                    "soft": round(policy.softPromptsPerUser), "system": round(policy.systemDialogsPerUser),
                    "settings": round(policy.settingsPromptsPerUser),
                ]),
                "users_reached_alerts": .integer(Int64(policy.usersReachedAlerts)),
                "uninstalls": .integer(Int64(policy.uninstalls)),
                "uninstalled_at_end": round(policy.uninstalledAtEnd),
                "reinstalls": .integer(Int64(policy.reinstalls)),
                "events": .integer(Int64(policy.events)),
                "policy_errors": counts(policy.errors),
                "guardrail_warnings": counts(policy.warnings),
                "answers": Self.answersJSON(policy.answers),
            ]
            if let hours = policy.medianHoursToAlerts { fields["median_hours_to_alerts"] = round(hours) }
            if index > 0 { fields["vs_first"] = .table(["policy": .string(first.name), "reach": changes]) }
            if let first = policy.firstError { fields["first_policy_error"] = .string(first) }
            if !policy.arms.isEmpty { fields["arms"] = armsJSON(policy) }
            return .table(fields)
        }
        return PolicyValue.table(
            [
                "model": .string(model),
                "users": .integer(Int64(users)),
                "days": .integer(Int64(days)),
                "seed": .string(String(seed)),
                "policies": .list(policies),
                "warnings": .list(warnings.map { .table(["policy": .string($0.policy), "message": .string($0.message)]) }),
            ].merging(extra) { _, added in added }
        ).prettyJSON
    }

    /// Each arm's users, reach and headline with intervals, and, for every arm after an
    /// experiment's first, its difference from that first arm.
    func armsJSON(_ policy: PolicyResult) -> PolicyValue {
        .list(
            policy.arms.map { arm in
                let first = policy.arms.first { $0.experiment == arm.experiment }!
                let (alerts, reach, changes) = reachJSON(arm.result, from: first.result)
                var fields: [String: PolicyValue] = [
                    "experiment": .string(arm.experiment), "arm": .string(arm.arm),
                    "users": .integer(Int64(arm.result.users)), "can_receive_alerts": alerts, "reach": reach,
                    "uninstalled_at_end": Self.rounded(arm.result.uninstalledAtEnd),
                    "prompts_per_user": .table([
                        "soft": Self.rounded(arm.result.softPromptsPerUser), "system": Self.rounded(arm.result.systemDialogsPerUser),
                        "settings": Self.rounded(arm.result.settingsPromptsPerUser),
                    ]),
                ]
                if first.arm != arm.arm { fields["vs_first_arm"] = .table(["arm": .string(first.arm), "reach": changes]) }
                return .table(fields)
            })
    }

    static func rounded(_ value: Double) -> PolicyValue { .number((value * 1_000_000).rounded() / 1_000_000) }

    /// A policy's reach on each reported day: the headline, every state with its interval, and
    /// every difference from `first` with its interval and verdict.
    func reachJSON(_ policy: PolicyResult, from first: PolicyResult) -> (PolicyValue, PolicyValue, PolicyValue) {
        let round = Self.rounded
        func rate(_ state: Reach?, _ day: Int) -> PolicyValue {
            let interval = policy.interval(state, day: day)
            return .table(["share": round(policy.share(state, day: day)), "ci95": .list([round(interval.low), round(interval.high)])])
        }
        func change(_ state: Reach?, _ day: Int) -> PolicyValue {
            let difference = policy.difference(state, day: day, from: first)
            return .table([
                "difference": round(difference.value),
                "ci95": .list([round(difference.interval.low), round(difference.interval.high)]),
                "verdict": .string(difference.verdict.rawValue),
            ])
        }
        var alerts: [String: PolicyValue] = [:]
        var reach: [String: PolicyValue] = [:]
        var changes: [String: PolicyValue] = [:]
        for day in reportedDays {
            alerts["day_\(day)"] = rate(.fullAlerts, day)
            var states: [String: PolicyValue] = ["not_installed": rate(nil, day)]
            var differences: [String: PolicyValue] = ["not_installed": change(nil, day)]
            for state in Reach.allCases {
                states[state.rawValue] = rate(state, day)
                differences[state.rawValue] = change(state, day)
            }
            reach["day_\(day)"] = .table(states)
            changes["day_\(day)"] = .table(differences)
        }
        return (.table(alerts), .table(reach), .table(changes))
    }

    /// The answers the users gave, as counts.
    static func answersJSON(_ a: PolicyResult.Answers) -> PolicyValue {
        .table([
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
            "inline": .table([
                "shown": .integer(Int64(a.inlineShown)), "acted": .integer(Int64(a.inlineActed)),
            ]),
            "quiet_delivery": .table([
                "kept": .integer(Int64(a.quietKept)), "turned_off": .integer(Int64(a.quietTurnedOff)),
                "made_prominent": .integer(Int64(a.quietMadeProminent)),
            ]),
            "app_events": .table(a.appEvents.mapValues { .integer(Int64($0)) }),
            "time_zone_changes": .integer(Int64(a.timeZoneChanges)),
        ])
    }

    // MARK: Text

    /// The policies side by side, one column each.
    public func text() -> String {
        var rows: [(String, [String])] = []
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        func perUser(_ value: Double) -> String { String(format: "%.2f", value) }
        rows.append(("", policies.map(\.name)))
        rows += reachRows()
        rows.append(("soft prompts / user", policies.map { perUser($0.softPromptsPerUser) }))
        rows.append(("system dialogs / user", policies.map { perUser($0.systemDialogsPerUser) }))
        rows.append(("settings prompts / user", policies.map { perUser($0.settingsPromptsPerUser) }))
        rows.append(("median time to alerts", policies.map { $0.medianHoursToAlerts.map { Self.duration(hours: $0) } ?? "—" }))
        rows.append(
            (
                "quiet users: kept / off / prominent",
                policies.map {
                    "\($0.answers.quietKept) / \($0.answers.quietTurnedOff) / \($0.answers.quietMadeProminent)"
                }
            ))
        rows.append(("uninstalls", policies.map { "\($0.uninstalls)" }))
        rows.append(("uninstalled, day \(days)", policies.map { Self.withInterval($0, nil, days) }))
        if policies.count > 1 { rows.append(("  vs \(policies[0].name)", versus(nil, days))) }
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
        var lines = [
            "\(users) users × \(days) days, model \(model), seed \(seed)",
            "shares of all users with a 95% interval [low, high]; \"vs\" rows: the difference from the first policy in",
            "percentage points, its 95% interval, and whether the interval excludes 0 (\"clear difference\")", "",
        ]
        for (label, cells) in rows {
            var line = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            for (cell, width) in zip(cells, columnWidths) {
                line += "  " + String(repeating: " ", count: max(0, width - cell.count)) + cell
            }
            lines.append(line)
        }
        for policy in policies where !policy.arms.isEmpty { lines += armLines(policy) }
        for policy in policies {
            if let first = policy.firstError { lines.append("\nfirst policy error of \(policy.name): \(first)") }
        }
        if !warnings.isEmpty { lines.append("") }
        for warning in warnings { lines.append("warning: \(warning)") }
        return lines.joined(separator: "\n")
    }

    /// A policy's arms side by side, per experiment: users, the headline and quiet delivery on
    /// the last day with their intervals, and each arm's difference from the experiment's first.
    func armLines(_ policy: PolicyResult) -> [String] {
        var lines: [String] = []
        for experiment in Set(policy.arms.map(\.experiment)).sorted() {
            let arms = policy.arms.filter { $0.experiment == experiment }
            lines += ["", "\(policy.name), experiment \(experiment), per arm (day \(days)):"]
            var rows: [[String]] = [["arm", "users", "can receive alerts", "vs \(arms[0].arm)", "quiet", "uninstalled"]]
            for arm in arms {
                let versus: String
                if arm.arm == arms[0].arm {
                    versus = "—"
                } else {
                    let difference = arm.result.difference(.fullAlerts, day: days, from: arms[0].result)
                    versus =
                        String(
                            format: "%+.1f pp [%+.1f, %+.1f] ", difference.value * 100,
                            difference.interval.low * 100, difference.interval.high * 100) + difference.verdict.rawValue
                }
                rows.append([
                    arm.arm, "\(arm.result.users)", Self.withInterval(arm.result, .fullAlerts, days), versus,
                    Self.withInterval(arm.result, .quiet, days), Self.withInterval(arm.result, nil, days),
                ])
            }
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                lines.append(
                    "  "
                        + zip(row, widths).map { cell, width in
                            cell.padding(toLength: width, withPad: " ", startingAt: 0)
                        }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
        return lines
    }

    /// `41.2% [40.3, 42.1]`.
    static func withInterval(_ policy: PolicyResult, _ state: Reach?, _ day: Int) -> String {
        let interval = policy.interval(state, day: day)
        return String(format: "%.1f%% [%.1f, %.1f]", policy.share(state, day: day) * 100, interval.low * 100, interval.high * 100)
    }

    /// Each policy's difference from the first, as a row's cells (`—` for the first).
    func versus(_ state: Reach?, _ day: Int) -> [String] {
        policies.enumerated().map { index, policy in
            guard index > 0 else { return "—" }
            let difference = policy.difference(state, day: day, from: policies[0])
            return String(
                format: "%+.1f pp [%+.1f, %+.1f] ", difference.value * 100, difference.interval.low * 100,
                difference.interval.high * 100) + difference.verdict.rawValue
        }
    }

    /// Every reach state on every reported day, with the differences that decide: the headline
    /// on every reported day, the rest at the end.
    func reachRows() -> [(String, [String])] {
        var rows: [(String, [String])] = []
        for state in Reach.allCases {
            for day in reportedDays {
                rows.append(("\(state.label), day \(day)", policies.map { Self.withInterval($0, state, day) }))
                if policies.count > 1, state == .fullAlerts || day == days {
                    rows.append(("  vs \(policies[0].name)", versus(state, day)))
                }
            }
        }
        return rows
    }

    /// `45 min`, `5.2 h`, `3.1 d`.
    static func duration(hours: Double) -> String {
        if hours < 1 { return String(format: "%.0f min", hours * 60) }
        if hours < 48 { return String(format: "%.1f h", hours) }
        return String(format: "%.1f d", hours / 24)
    }
}
