import Foundation
import PermitCore

/// `permit check`'s probe runs: `decide` asked through the real engine, on a simulated fresh
/// install, in the states a policy's branches turn on, so every decision they bring back is
/// validated as `permit decide` validates it and its texts are held to the translation rules.
///
/// What is probed (docs/reference/cli.md#check-probes): iOS 17.0, 15.3 and 12.0; the statuses
/// `not_determined`, `denied`, `provisional` and `authorized`; the local times 03:00, 12:00
/// and 19:30 in UTC (inside and outside the quiet hours policies keep); `app_launch`,
/// `app_foreground`, `app_background`, `background_refresh`; `feature_opened` for each of
/// `features`; every answer to the pre-prompt, the system dialog and the Settings prompt;
/// each declared app event as
/// its 1st, 2nd, 3rd and 5th (counted in `ctx.history.events.NAME.count`, as the engine
/// counts it), without properties and with each set of properties the pack's scenarios send it
/// with (so a text behind `ctx.event.properties` is reached); and each experiment's arms, each
/// pinned in turn.
public enum CheckProbes {
    /// The iOS versions probed: today's, the last before the notification-settings deep link,
    /// the first with provisional authorization.
    static let versions = ["17.0", "15.3", "12.0"]
    /// Local times (hour, minute), in UTC: night, midday, evening.
    static let times = [(3, 0), (12, 0), (19, 30)]
    /// The statuses probed.
    static let statuses: [PermissionStatus] = [.notDetermined, .denied, .provisional, .authorized]
    /// Which occurrence of a declared app event is probed.
    static let eventCounts = [1, 2, 3, 5]
    /// Monday 2026-01-05 00:00 UTC: the probes' day.
    static let day = Date(timeIntervalSince1970: 1_767_571_200)

    /// One probe: an event on a device in a state at a time.
    public struct Probe: Sendable, CustomStringConvertible {
        /// The event the probe sends.
        public var event: AppEvent
        /// The permission status the simulated device reports.
        public var status: PermissionStatus
        /// The iOS version of the simulated device, as `"17.0"`.
        public var version: String
        /// The local hour (UTC) the event happens at.
        public var hour: Int
        /// The minute within that hour.
        public var minute: Int
        /// For an app event of the app's own: which occurrence it is.
        public var occurrence: Int?
        /// The experiment arm pinned for each experiment (by name), when the policy has experiments.
        public var arms: [String: String]

        /// `lesson_completed, the 3rd; not_determined, iOS 17.0, 19:30 UTC, arm first_ask=quiet`.
        public var description: String {
            var head = event.description
            if let occurrence { head += ", the \(Self.ordinal(occurrence))" }
            var parts = [status.rawValue, "iOS \(version)", String(format: "%02d:%02d UTC", hour, minute)]
            parts += arms.sorted { $0.key < $1.key }.map { "arm \($0.key)=\($0.value)" }
            return "\(head); \(parts.joined(separator: ", "))"
        }

        static func ordinal(_ number: Int) -> String {
            switch number {
            case 1: "1st"
            case 2: "2nd"
            case 3: "3rd"
            default: "\(number)th"
            }
        }
    }

    /// What the probes found, each once, in the order found.
    public struct Findings: Sendable {
        /// Each policy error, with the first probe that raised it.
        public var errors: [(error: PolicyError, probe: Probe)] = []
        /// Translation problems of the decisions that came back (TranslationCheck's sentences).
        public var translations: [String] = []
        /// Each reason a decision gave for passing the daily cap (`cap_exempt`), with the first
        /// probe that brought it back: what a reviewer should see.
        public var capExemptions: [(why: String, probe: Probe)] = []
    }

    /// Runs every probe of `policy` and collects what went wrong; `translationProblems` words
    /// the problems of one decision's texts (the policy's declared locales applied).
    /// `appEvents`: app events with properties to probe besides the bare declared ones
    /// (`scenarioEvents(policyAt:)`).
    public static func run(
        _ policy: any Policy, features: [String], appEvents: [AppEvent] = [], translationProblems: (Decision) -> [String]
    ) async -> Findings {
        var findings = Findings()
        var seenErrors = Set<String>()
        var seenTranslations = Set<String>()
        let all = probes(features: features, declared: policy.declaredEvents, appEvents: appEvents, experiments: policy.experiments)
        for probe in all {
            guard let os = try? OSVersion(parsing: probe.version) else { continue }
            var ledger = Ledger()
            if let occurrence = probe.occurrence, occurrence > 1 {
                var history = Ledger.EventHistory()
                history.count = occurrence - 1
                ledger.events[probe.event.name] = history
            }
            var single = SingleDecision(
                platform: Platform(version: os), status: probe.status, ledger: ledger, timeZone: TimeZone(identifier: "UTC")!)
            single.arms = probe.arms
            let now = day.addingTimeInterval(TimeInterval(probe.hour * 3600 + probe.minute * 60))
            // A status the device cannot be in on this version (provisional before iOS 12) is no probe.
            guard let outcome = try? await single.outcome(of: probe.event, policy: policy, now: now) else { continue }
            for error in outcome.errors + outcome.followUps.flatMap(\.errors) where seenErrors.insert(error.description).inserted {
                findings.errors.append((error, probe))
            }
            // What the policy returned, translations and all (the decision the app gets is localised).
            for decision in ([outcome.proposed] + outcome.followUps.map(\.proposed)).compactMap({ $0 }) {
                for problem in translationProblems(decision) where seenTranslations.insert(problem).inserted {
                    findings.translations.append(problem)
                }
                if let why = decision.capExempt, !findings.capExemptions.contains(where: { $0.why == why }) {
                    findings.capExemptions.append((why, probe))
                }
            }
        }
        return findings
    }

    /// Every probe, in a stable order.
    static func probes(features: [String], declared: [String], appEvents: [AppEvent] = [], experiments: [Experiment]) -> [Probe] {
        var events: [(AppEvent, Int?)] = [(.appLaunch, nil), (.appForeground, nil), (.appBackground, nil), (.backgroundRefresh, nil)]
        events += features.map { (.featureOpened($0), nil) }
        events += SoftPromptAnswer.allCases.map { (.softPromptAnswered($0), nil) }
        events += [(.systemPromptAnswered(granted: true), nil), (.systemPromptAnswered(granted: false), nil)]
        events += SettingsPromptAnswer.allCases.map { (.settingsPromptAnswered($0), nil) }
        events += InformAnswer.allCases.map { (.informAnswered($0), nil) }
        for name in declared {
            guard let event = try? AppEvent.custom(name) else { continue }
            events += eventCounts.map { (event, $0) }
            for event in appEvents where event.name == name {
                events += eventCounts.map { (event, $0) }
            }
        }
        var armSets: [[String: String]] = [[:]]
        for experiment in experiments {
            armSets += experiment.arms.map { [experiment.name: $0.name] }
        }
        var probes: [Probe] = []
        for arms in armSets {
            for version in versions {
                for status in statuses {
                    for (hour, minute) in times {
                        for (event, occurrence) in events {
                            probes.append(
                                Probe(
                                    event: event, status: status, version: version, hour: hour, minute: minute,
                                    occurrence: occurrence, arms: arms))
                        }
                    }
                }
            }
        }
        return probes
    }

    /// The most property sets of one app event probed: a pack's scenarios send an event with a
    /// handful of kinds of properties; a generated suite with hundreds would multiply the probes.
    static let propertySetsPerEvent = 8

    /// The app events with properties the pack's scenarios send (`tests/` next to the policy),
    /// each distinct set once, at most `propertySetsPerEvent` of one name; the events of a
    /// scenario file that does not parse are not read (`permit test` reports that file).
    public static func scenarioEvents(policyAt url: URL) -> [AppEvent] {
        let tests = url.deletingLastPathComponent().appendingPathComponent("tests")
        guard FileManager.default.fileExists(atPath: tests.path), let files = try? Discovery.scenarios(under: [tests.path]) else {
            return []
        }
        var seen = Set<String>()
        var perName: [String: Int] = [:]
        var events: [AppEvent] = []
        for file in files {
            guard let cases = try? ScenarioParser.parseCases(contentsOf: file.url, displayName: file.displayPath) else { continue }
            for step in cases.flatMap(\.steps) {
                guard case .event(let event) = step.action, case .custom(let custom) = event, !custom.properties.isEmpty,
                    perName[custom.name, default: 0] < propertySetsPerEvent, seen.insert(event.description).inserted
                else { continue }
                perName[custom.name, default: 0] += 1
                events.append(event)
            }
        }
        return events
    }

    /// The features probed: those the pack's scenarios open (`feature: NAME` in
    /// `tests/*.yaml` next to the policy) and those of a `features` list param;
    /// `notifications_probe` when there are none.
    public static func features(params: [String: PolicyValue], policyAt url: URL) -> [String] {
        var features = Set(PolicyReview.scenarioFeatures(of: url))
        if case .list(let names)? = params["features"] {
            for case .string(let name) in names where !name.isEmpty { features.insert(name) }
        }
        return features.isEmpty ? ["notifications_probe"] : features.sorted()
    }
}
