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
    /// Time from first launch to the first time a user could receive alerts: the median over
    /// all users (one who never could counts as after the run), with its interval.
    public let timeToAlerts: TimeToAlerts
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
    /// The days whose per-user states `outcomes` keeps (the reported days unless the run asked
    /// for others); empty inside an arm's result.
    public let outcomeDays: [Int]
    /// Each user's state on each of `outcomeDays` (`ReachCounts.code`), user by user: the
    /// same users in the same order for every policy of a run, so two policies' states pair up.
    let outcomes: [UInt8]

    /// Users the engine never put in an arm, per experiment the policy declares (0 when every
    /// user has one; reported, not dropped).
    public let usersWithoutArm: [String: Int]
    /// The experiments the policy's users were put in, or left out of, sorted.
    public var experiments: [String] { Set(arms.map(\.experiment)).union(usersWithoutArm.keys).sorted() }

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
        public let quietLeftQuiet: Int
        /// Quiet users who turned notifications off.
        public let quietTurnedOff: Int
        /// Quiet users who tapped Keep › Deliver Immediately (authorized, still without alerts).
        public let quietDeliveredImmediately: Int
        /// The app's own events the users sent (`events:` in the model), by name.
        public let appEvents: [String: Int]
        /// Times a user's device changed time zone (`travel:` in the model).
        public let timeZoneChanges: Int
    }

    init(name: String, file: String, days: Int, tally: Tally, outcomeDays: [Int] = []) {
        let users = max(1, tally.users)
        func share(_ count: Int) -> Double { Double(count) / Double(users) }
        self.name = name
        self.file = file
        self.users = tally.users
        self.days = days
        reachByDay = tally.reachByDay
        self.outcomeDays = tally.outcomes.count == tally.users * outcomeDays.count ? outcomeDays : []
        outcomes = self.outcomeDays.isEmpty ? [] : tally.outcomes
        uninstalledAtEnd = share(tally.uninstalledAtEnd)
        softPromptsPerUser = share(tally.softPrompts)
        systemDialogsPerUser = share(tally.systemDialogs)
        settingsPromptsPerUser = share(tally.settingsPrompts)
        timeToAlerts = TimeToAlerts(secondsOfReached: tally.secondsToAlerts, users: tally.users)
        usersReachedAlerts = timeToAlerts.reached
        usersWithoutArm = tally.withoutArm
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
            quietLeftQuiet: tally.quietLeftQuiet, quietTurnedOff: tally.quietTurnedOff,
            quietDeliveredImmediately: tally.quietDeliveredImmediately, appEvents: tally.appEvents,
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

    /// This policy's share in `reach` at the end of `day` minus `other`'s, with the interval
    /// for different users (Newcombe's independent-samples interval, from the two Wilson
    /// intervals): right for the arms of an experiment. Two policies of one run meet the same
    /// users: `SimulationResult.difference(policy:from:state:day:)` pairs them.
    public func difference(_ reach: Reach?, day: Int, from other: PolicyResult) -> Difference {
        Confidence.difference((count(reach, day: day), users), minus: (other.count(reach, day: day), other.users))
    }

    /// The paired 2×2 table of being in `reach` (`nil`: without the app) at the end of `day`,
    /// this policy against `other`, user by user; `nil` when the day's states were not kept or
    /// the two were not run on the same users.
    public func pairedTable(_ reach: Reach?, day: Int, with other: PolicyResult) -> Confidence.PairedTable? {
        guard let k = outcomeDays.firstIndex(of: day), other.outcomeDays == outcomeDays, other.users == users,
            !outcomes.isEmpty
        else { return nil }
        let code = ReachCounts.code(reach), stride = outcomeDays.count
        var table = Confidence.PairedTable(both: 0, onlyA: 0, onlyB: 0, neither: 0)
        outcomes.withUnsafeBufferPointer { mine in
            other.outcomes.withUnsafeBufferPointer { theirs in
                var index = k
                while index < mine.count {
                    switch (mine[index] == code, theirs[index] == code) {
                    case (true, true): table.both += 1
                    case (true, false): table.onlyA += 1
                    case (false, true): table.onlyB += 1
                    case (false, false): table.neither += 1
                    }
                    index += stride
                }
            }
        }
        return table
    }

    /// This policy's share minus `other`'s, paired user by user when both keep the day's
    /// states for the same users (`Confidence.paired`), else as different users.
    public func pairedDifference(_ reach: Reach?, day: Int, from other: PolicyResult) -> Difference {
        guard let table = pairedTable(reach, day: day, with: other) else { return difference(reach, day: day, from: other) }
        return Confidence.paired(table)
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
    /// The significance level of the live A/B test the report plans (`--alpha`).
    public var alpha = LiveTestPlan.defaultAlpha

    /// The days the summary shows: 1, 7 and the last (those that exist, once each).
    public var reportedDays: [Int] { Self.reportedDays(days: days) }

    /// The reported days of a run of `days` days.
    public static func reportedDays(days: Int) -> [Int] {
        var result: [Int] = []
        for day in [1, 7, days] where day >= 1 && day <= days && !result.contains(day) { result.append(day) }
        return result
    }

    // MARK: Comparisons

    /// Policy `policy`'s share in `state` (`nil`: without the app) at the end of `day` minus
    /// policy `from`'s (indices into `policies`). The policies met the same users with the same
    /// random streams, so the difference is paired user by user (`Confidence.paired`); the
    /// verdict is uncorrected. `comparisons(allPairs:)` gives the headline family corrected.
    public func difference(policy: Int, from other: Int, state: Reach?, day: Int) -> Difference {
        policies[policy].pairedDifference(state, day: day, from: policies[other])
    }

    /// One comparison of the family a report corrects for multiplicity.
    public struct Comparison: Sendable {
        /// The policy whose share comes first (index into `policies`).
        public let policy: Int
        /// The policy subtracted.
        public let from: Int
        /// The day.
        public let day: Int
        /// The paired difference, with its Holm correction over the family.
        public let difference: Difference
    }

    /// The comparisons whose verdicts the report corrects: "can receive alerts" on every
    /// reported day, each policy against the first (with `allPairs`, every later policy against
    /// every earlier one), Holm-corrected over all of them together. Empty with one policy.
    public func comparisons(allPairs: Bool = false) -> [Comparison] {
        var keys: [(Int, Int, Int)] = []
        for from in policies.indices where allPairs || from == 0 {
            for policy in policies.indices where policy > from {
                for day in reportedDays { keys.append((policy, from, day)) }
            }
        }
        let corrected = Confidence.holm(keys.map { difference(policy: $0.0, from: $0.1, state: .fullAlerts, day: $0.2) })
        return zip(keys, corrected).map { Comparison(policy: $0.0.0, from: $0.0.1, day: $0.0.2, difference: $0.1) }
    }

    /// The difference the report prints for `policy` − `from` in `state` on `day`: from the
    /// corrected family when it belongs to it, else uncorrected.
    func reported(_ family: [Comparison], policy: Int, from: Int, state: Reach?, day: Int) -> Difference {
        if state == .fullAlerts,
            let corrected = family.first(where: { $0.policy == policy && $0.from == from && $0.day == day })
        {
            return corrected.difference
        }
        return difference(policy: policy, from: from, state: state, day: day)
    }

    /// What the intervals cover, said in every report.
    public static let coverage =
        "simulation noise for this model: how far a figure would move with another seed on the same model; "
        + "not the uncertainty of the model's own figures (a different model can change a verdict)"

    /// How the verdicts are corrected, in words, for the text and HTML reports.
    func correctionText(_ family: [Comparison], allPairs: Bool) -> String {
        guard !family.isEmpty else { return "one policy: no comparisons" }
        let pairs = allPairs ? "every pair of policies" : "each policy vs the first"
        return "\"can receive alerts\" verdicts (days \(reportedDays.map(String.init).joined(separator: ", ")), \(pairs)) "
            + "are Holm-corrected over \(family.count) comparison\(family.count == 1 ? "" : "s") (family-wise error 5%); "
            + "\"clear difference\" or \"too close to call\"; every other row is one uncorrected comparison, "
            + "\"\(Difference.uncorrectedApart)\" or \"\(Difference.uncorrectedTogether)\" (exploratory: "
            + "about one in twenty excludes 0 when nothing differs)"
    }

    // MARK: JSON

    /// A stable shape for machines: snake_case keys, sorted; shares rounded to 6 decimals.
    /// `intervals` says what the intervals cover and which verdicts are corrected; with
    /// `allPairs`, `pairs` compares every later policy with every earlier one; `adding` puts
    /// more top-level keys in (`sensitivity`).
    public func json(allPairs: Bool = false, adding extra: [String: PolicyValue] = [:]) -> String {
        let round = Self.rounded
        func counts(_ dictionary: [String: Int]) -> PolicyValue {
            .table(dictionary.mapValues { .integer(Int64($0)) })
        }
        let family = comparisons(allPairs: allPairs)
        let policies: [PolicyValue] = policies.enumerated().map { index, policy in
            let first = self.policies[0]
            let (alerts, reach, changes) = reachJSON(policy, from: first) { state, day in
                self.reported(family, policy: index, from: 0, state: state, day: day)
            }
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
            fields["time_to_alerts"] = Self.timeToAlertsJSON(policy.timeToAlerts)
            if index > 0 {
                fields["vs_first"] = .table(["policy": .string(first.name), "reach": changes])
                fields["live_test"] = liveTestJSON(index)
            }
            if !policy.experiments.isEmpty {
                fields["users_without_arm"] = counts(
                    Dictionary(uniqueKeysWithValues: policy.experiments.map { ($0, policy.usersWithoutArm[$0] ?? 0) }))
            }
            if let first = policy.firstError { fields["first_policy_error"] = .string(first) }
            if !policy.arms.isEmpty { fields["arms"] = armsJSON(policy) }
            return .table(fields)
        }
        var fields: [String: PolicyValue] = [
            "model": .string(model),
            "users": .integer(Int64(users)),
            "days": .integer(Int64(days)),
            "seed": .string(String(seed)),
            "intervals": intervalsJSON(family, allPairs: allPairs),
            "policies": .list(policies),
            "warnings": .list(warnings.map { .table(["policy": .string($0.policy), "message": .string($0.message)]) }),
        ]
        if allPairs { fields["pairs"] = pairsJSON(family) }
        fields.merge(extra) { _, added in added }
        return PolicyValue.table(fields).prettyJSON
    }

    /// What the intervals cover and how the verdicts are judged.
    func intervalsJSON(_ family: [Comparison], allPairs: Bool) -> PolicyValue {
        .table([
            "level": .number(1 - Confidence.alpha),
            "cover": .string(Self.coverage),
            "differences": .string(
                "policies: paired user by user (Newcombe 1998, paired data, method 10); "
                    + "arms of an experiment: different users (Newcombe 1998, independent samples, method 10)"),
            "family_wise": .table([
                "method": .string("holm"),
                "alpha": .number(Confidence.alpha),
                "comparisons": .integer(Int64(family.count)),
                "family": .string(
                    "can_receive_alerts on every reported day, "
                        + (allPairs ? "every pair of policies" : "each policy vs the first")),
                "uncorrected": .string("every other reach state and every arm comparison: exploratory"),
            ]),
        ])
    }

    /// Every later policy against every earlier one: the headline on each reported day
    /// (corrected) and every reach state (uncorrected), paired.
    func pairsJSON(_ family: [Comparison]) -> PolicyValue {
        var pairs: [PolicyValue] = []
        for from in policies.indices {
            for policy in policies.indices where policy > from {
                let (_, _, changes) = reachJSON(policies[policy], from: policies[from]) { state, day in
                    self.reported(family, policy: policy, from: from, state: state, day: day)
                }
                var alerts: [String: PolicyValue] = [:]
                for day in reportedDays {
                    alerts["day_\(day)"] = Self.differenceJSON(reported(family, policy: policy, from: from, state: .fullAlerts, day: day))
                }
                pairs.append(
                    .table([
                        "policy": .string(policies[policy].name), "from": .string(policies[from].name),
                        "can_receive_alerts": .table(alerts), "reach": changes,
                    ]))
            }
        }
        return .list(pairs)
    }

    /// A difference: its value, 95% interval, whether paired, p-value, verdict, and its
    /// correction if it has one.
    static func differenceJSON(_ difference: Difference) -> PolicyValue {
        let round = rounded
        var fields: [String: PolicyValue] = [
            "difference": round(difference.value),
            "ci95": .list([round(difference.interval.low), round(difference.interval.high)]),
            "paired": .bool(difference.paired),
            "p_value": round(difference.pValue),
            "verdict": .string(difference.words),
        ]
        if let correction = difference.correction {
            fields["p_holm"] = round(correction.adjustedP)
            fields["corrected_over"] = .integer(Int64(correction.family))
        } else {
            fields["corrected_over"] = .integer(1)
        }
        return .table(fields)
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
    /// `difference` gives each difference (by default, as different users: arms).
    func reachJSON(
        _ policy: PolicyResult, from first: PolicyResult, difference: ((Reach?, Int) -> Difference)? = nil
    ) -> (PolicyValue, PolicyValue, PolicyValue) {
        let round = Self.rounded
        func rate(_ state: Reach?, _ day: Int) -> PolicyValue {
            let interval = policy.interval(state, day: day)
            return .table(["share": round(policy.share(state, day: day)), "ci95": .list([round(interval.low), round(interval.high)])])
        }
        func change(_ state: Reach?, _ day: Int) -> PolicyValue {
            Self.differenceJSON(difference?(state, day) ?? policy.difference(state, day: day, from: first))
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

    /// The median time to alerts over all users and its interval's ends, in hours; a figure
    /// that falls after the run (fewer than half, or too few, ever could) is left out.
    static func timeToAlertsJSON(_ time: TimeToAlerts) -> PolicyValue {
        var fields: [String: PolicyValue] = [
            "users_reached": .integer(Int64(time.reached)),
            "over": .string(
                "all users; one who never could receive alerts counts as after the run, and a figure after the run is left out"),
        ]
        if let hours = time.medianHours { fields["median_hours"] = rounded(hours) }
        if let hours = time.lowHours { fields["ci95_low_hours"] = rounded(hours) }
        if let hours = time.highHours { fields["ci95_high_hours"] = rounded(hours) }
        return .table(fields)
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
                "left_quiet": .integer(Int64(a.quietLeftQuiet)), "turned_off": .integer(Int64(a.quietTurnedOff)),
                "delivered_immediately": .integer(Int64(a.quietDeliveredImmediately)),
            ]),
            "app_events": .table(a.appEvents.mapValues { .integer(Int64($0)) }),
            "time_zone_changes": .integer(Int64(a.timeZoneChanges)),
        ])
    }

    // MARK: Text

    /// The policies side by side, one column each; with `allPairs`, then every pair of
    /// policies on the headline; with `sensitivity`, its section, and the live-test plan over
    /// the assumptions too.
    public func text(allPairs: Bool = false, sensitivity: SensitivityResult? = nil) -> String {
        let family = comparisons(allPairs: allPairs)
        var rows: [(String, [String])] = []
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        func perUser(_ value: Double) -> String { String(format: "%.2f", value) }
        rows.append(("", policies.map(\.name)))
        rows += reachRows(family)
        rows.append(("soft prompts / user", policies.map { perUser($0.softPromptsPerUser) }))
        rows.append(("system dialogs / user", policies.map { perUser($0.systemDialogsPerUser) }))
        rows.append(("settings prompts / user", policies.map { perUser($0.settingsPromptsPerUser) }))
        rows.append(("median time to alerts", policies.map { $0.timeToAlerts.description }))
        rows.append(
            (
                "quiet users: left quiet / off / kept (deliver immediately)",
                policies.map {
                    "\($0.answers.quietLeftQuiet) / \($0.answers.quietTurnedOff) / \($0.answers.quietDeliveredImmediately)"
                }
            ))
        rows.append(("uninstalls", policies.map { "\($0.uninstalls)" }))
        rows.append(("uninstalled, day \(days)", policies.map { Self.withInterval($0, nil, days) }))
        if policies.count > 1 { rows.append(("  vs \(policies[0].name)", versus(family, nil, days))) }
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
            "intervals cover \(Self.coverage)",
            "shares of all users with a 95% interval [low, high]; \"vs\" rows: the difference from the first policy in",
            "percentage points, paired user by user (every policy met the same users), its 95% interval, and a verdict:",
            "\(correctionText(family, allPairs: allPairs))", "",
        ]
        for (label, cells) in rows {
            var line = label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            for (cell, width) in zip(cells, columnWidths) {
                line += "  " + String(repeating: " ", count: max(0, width - cell.count)) + cell
            }
            lines.append(line)
        }
        if allPairs, policies.count > 1 { lines += pairLines(family) }
        for policy in policies where !policy.experiments.isEmpty { lines += armLines(policy) }
        if let sensitivity { lines.append(sensitivity.text()) }
        lines += liveTestLines(sensitivity: sensitivity)
        for policy in policies {
            if let first = policy.firstError { lines.append("\nfirst policy error of \(policy.name): \(first)") }
        }
        if !warnings.isEmpty { lines.append("") }
        for warning in warnings { lines.append("warning: \(warning)") }
        return lines.joined(separator: "\n")
    }

    /// A policy's arms side by side, per experiment, on every reported day (1, 7 and the
    /// last): users, the headline with its interval and each arm's difference from the
    /// experiment's first arm, quiet delivery and uninstalled. Arms are different users, so
    /// their differences are those of independent samples; users the engine never put in an arm
    /// are a line of their own, so the arms' users add up to the run's.
    func armLines(_ policy: PolicyResult) -> [String] {
        var lines: [String] = []
        for experiment in policy.experiments {
            lines += ["", "\(policy.name), experiment \(experiment), per arm:"]
            let rows = armRows(policy, experiment: experiment)
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                lines.append(
                    "  "
                        + zip(row, widths).enumerated().map { column, pair in
                            // Counts and days right-aligned, names and figures left.
                            column == 1 || column == 2
                                ? String(repeating: " ", count: pair.1 - pair.0.count) + pair.0
                                : pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
                        }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
            }
        }
        return lines
    }

    /// One experiment's table, header first: per arm and reported day, users, the headline
    /// with its interval, the difference from the first arm with its verdict, quiet delivery and
    /// uninstalled; then, if any, the users without an arm.
    public func armRows(_ policy: PolicyResult, experiment: String) -> [[String]] {
        let arms = policy.arms.filter { $0.experiment == experiment }
        guard let firstArm = arms.first else { return [["arm", "users"], ["(no arm)", "\(policy.usersWithoutArm[experiment] ?? 0)"]] }
        var rows: [[String]] = [["arm", "users", "day", "can receive alerts", "vs \(firstArm.arm)", "quiet", "uninstalled"]]
        for arm in arms {
            for day in reportedDays {
                let versus: String
                if arm.arm == firstArm.arm {
                    versus = "—"
                } else {
                    let difference = arm.result.difference(.fullAlerts, day: day, from: firstArm.result)
                    versus =
                        String(
                            format: "%+.1f pp [%+.1f, %+.1f] ", difference.value * 100,
                            difference.interval.low * 100, difference.interval.high * 100) + difference.words
                }
                let first = day == reportedDays[0]
                rows.append([
                    first ? arm.arm : "", first ? "\(arm.result.users)" : "", "\(day)",
                    Self.withInterval(arm.result, .fullAlerts, day), versus,
                    Self.withInterval(arm.result, .quiet, day), Self.withInterval(arm.result, nil, day),
                ])
            }
        }
        let unassigned = policy.usersWithoutArm[experiment] ?? 0
        if unassigned > 0 { rows.append(["(no arm)", "\(unassigned)", "", "", "", "", ""]) }
        return rows
    }

    /// The live A/B test that would confirm each policy's difference from the first on the
    /// headline (can receive alerts on the last day), at `alpha`.
    public var liveTestPlans: [(policy: String, plan: LiveTestPlan)] {
        policies.dropFirst().map { policy in
            (
                policy.name,
                LiveTestPlan(
                    control: policies[0].share(.fullAlerts, day: days), treatment: policy.share(.fullAlerts, day: days), alpha: alpha)
            )
        }
    }

    /// The `live_test` object of policy `index` (after the first): the plan's level and power,
    /// and its size with the range over the difference's interval, or the sizes for the smallest
    /// differences worth detecting, or nothing for a policy that prompted nobody.
    func liveTestJSON(_ index: Int) -> PolicyValue {
        let round = Self.rounded
        let plan = LiveTestPlan(
            control: policies[0].share(.fullAlerts, day: days), treatment: policies[index].share(.fullAlerts, day: days),
            alpha: alpha)
        var live: [String: PolicyValue] = [
            "metric": .string("can_receive_alerts_day_\(days)"), "alpha": .number(plan.alpha), "power": .number(plan.power),
        ]
        switch liveTestSizing(index) {
        case .clear(let installs, let fewest, let most):
            live["installs_per_arm"] = .integer(Int64(installs))
            live["installs_per_arm_range"] = .list([.integer(Int64(fewest)), .integer(Int64(most))])
            live["sized_for"] = .string("the simulated difference, with its 95% interval")
        case .tooCloseToCall(let smallest):
            live["sized_for"] = .string("the smallest difference worth detecting (too close to call)")
            live["smallest_worth_detecting"] = .list(
                smallest.map { .table(["difference": round($0.difference), "installs_per_arm": .integer(Int64($0.installs))]) })
        case .promptedNobody:
            live["sized_for"] = .string("nothing: the policy prompted nobody")
        }
        return .table(live)
    }

    /// How big a live test for policy `index` against the first should be, from the headline
    /// difference on the last day (Holm-corrected as the report gives it).
    public func liveTestSizing(_ index: Int) -> LiveTestSizing {
        let difference = reported(comparisons(), policy: index, from: 0, state: .fullAlerts, day: days)
        return LiveTestSizing.sizing(
            control: policies[0].share(.fullAlerts, day: days), difference: difference, alpha: alpha,
            promptedAnyone: policies[index].promptedAnyone)
    }

    /// The live-test plan as lines of text: what to run, and that the live test decides.
    func liveTestLines(sensitivity: SensitivityResult? = nil) -> [String] {
        guard policies.count > 1 else { return [] }
        var lines = [
            "",
            "live A/B test to confirm (can receive alerts, day \(days); two-sided α = \(String(format: "%g", alpha)), "
                + "\(Int(LiveTestPlan.defaultPower * 100))% power, two arms of equal size):",
        ]
        for (index, (name, plan)) in liveTestPlans.enumerated() {
            let change = String(
                format: "%+.1f pp (%.1f%% → %.1f%%)", (plan.treatment - plan.control) * 100, plan.control * 100,
                plan.treatment * 100)
            let sizing = liveTestSizing(index + 1)
            if sizing == .promptedNobody {
                lines.append("  \(name) vs \(policies[0].name): \(name) \(sizing.text)")
                continue
            }
            lines.append("  \(name) vs \(policies[0].name): \(change): \(sizing.text)")
            if let judged = sensitivity?.comparisons.first(where: { $0.policy == name }) {
                lines.append("    " + Self.planOverAssumptions(judged.differenceRange, control: plan.control, alpha: alpha))
            }
        }
        lines.append("  The simulation measures the model, not your users: the live test is what decides.")
        return lines
    }

    /// The installs a live test needs over the difference's range across the drawn models: the
    /// smallest effect in the range needs the most; a range that crosses 0 holds models under
    /// which there is nothing to find.
    static func planOverAssumptions(_ range: ClosedRange<Double>, control: Double, alpha: Double) -> String {
        let text = String(format: "over the assumptions (%+.1f to %+.1f pp)", range.lowerBound * 100, range.upperBound * 100)
        guard range.lowerBound > 0 || range.upperBound < 0 else {
            return text + ": some drawn models show no difference or the other sign, so a live test may find none"
        }
        let smallest = range.lowerBound > 0 ? range.lowerBound : range.upperBound
        let plan = LiveTestPlan(control: control, treatment: min(1, max(0, control + smallest)), alpha: alpha)
        return text + ": up to about " + (plan.installsPerArm.map { grouped($0) } ?? "—")
            + String(format: " installs per arm for the smallest, %+.1f pp", smallest * 100)
    }

    /// `12,345`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// `41.2% [40.3, 42.1]`.
    static func withInterval(_ policy: PolicyResult, _ state: Reach?, _ day: Int) -> String {
        let interval = policy.interval(state, day: day)
        return String(format: "%.1f%% [%.1f, %.1f]", policy.share(state, day: day) * 100, interval.low * 100, interval.high * 100)
    }

    /// Each policy's difference from the first, as a row's cells (`—` for the first).
    func versus(_ family: [Comparison], _ state: Reach?, _ day: Int) -> [String] {
        policies.indices.map { index in
            guard index > 0 else { return "—" }
            return Self.differenceText(reported(family, policy: index, from: 0, state: state, day: day))
        }
    }

    /// `+3.2 pp [+1.9, +4.5] clear difference`, with `(Holm p 0.003)` or `(Holm p < 0.001)` when corrected.
    static func differenceText(_ difference: Difference) -> String {
        var text =
            String(
                format: "%+.1f pp [%+.1f, %+.1f] ", difference.value * 100, difference.interval.low * 100,
                difference.interval.high * 100) + difference.words
        if let correction = difference.correction {
            text += correction.adjustedP < 0.001 ? " (Holm p < 0.001)" : String(format: " (Holm p %.3f)", correction.adjustedP)
        }
        return text
    }

    /// Every pair of policies on the headline, each reported day a column: later minus earlier.
    func pairLines(_ family: [Comparison]) -> [String] {
        var rows: [[String]] = [["can receive alerts, pair"] + reportedDays.map { "day \($0)" }]
        for from in policies.indices {
            for policy in policies.indices where policy > from {
                rows.append(
                    ["\(policies[policy].name) − \(policies[from].name)"]
                        + reportedDays.map { day in
                            Self.differenceText(reported(family, policy: policy, from: from, state: .fullAlerts, day: day))
                        })
            }
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return ["", "every pair (paired, 95% intervals, verdicts Holm-corrected over \(family.count)):"]
            + rows.map { row in
                "  "
                    + zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                    .trimmingCharacters(in: .whitespaces)
            }
    }

    /// Every reach state on every reported day, with the differences that decide: the headline
    /// on every reported day, the rest at the end.
    func reachRows(_ family: [Comparison]) -> [(String, [String])] {
        var rows: [(String, [String])] = []
        for state in Reach.allCases {
            for day in reportedDays {
                rows.append(("\(state.label), day \(day)", policies.map { Self.withInterval($0, state, day) }))
                if policies.count > 1, state == .fullAlerts || day == days {
                    rows.append(("  vs \(policies[0].name)", versus(family, state, day)))
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
