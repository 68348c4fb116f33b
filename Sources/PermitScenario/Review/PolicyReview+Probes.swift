import Foundation
import PermitCore

extension PolicyReview {
    /// The iOS versions the probes run on: today's, the last before the notification-settings
    /// deep link (15.3), and the first with provisional authorization (12.0).
    static let probeVersions = ["17.0", "15.3", "12.0"]

    /// Probe runs of `decide` through the engine on a fresh install: `app_launch` (an ask there
    /// has no feature context), `feature_opened` for each of `features` while undetermined
    /// (the pre-prompt's texts, and what declining it brings) and while denied (the Settings
    /// prompt's texts), and each app event of the policy's own while undetermined (a system
    /// dialog there comes cold).
    public static func probe(
        _ policy: any Policy, file: String, features: [String], now: Date = Date(timeIntervalSince1970: 1_790_000_000)
    ) async -> [ReviewFinding] {
        var found: [ReviewFinding] = []
        let utc = TimeZone(identifier: "UTC")!
        for version in probeVersions {
            guard let os = try? OSVersion(parsing: version) else { continue }
            let platform = Platform(version: os)
            let fresh = SingleDecision(platform: platform, status: .notDetermined, timeZone: utc)
            if let outcome = try? await fresh.outcome(of: .appLaunch, policy: policy, now: now) {
                let location = "\(file) (app_launch, iOS \(version), fresh install)"
                let decisions = [outcome.proposed, outcome.decision].compactMap { $0 }
                // A malformed ask is still an ask: `permit check` reports the error, the review the ask.
                let asked =
                    decisions.first(where: asks)?.action.name
                    ?? outcome.errors.compactMap(\.action).first { $0 == "soft_prompt" || $0 == "request_permission" }
                if let asked {
                    found.append(
                        ReviewFinding(
                            location: location, rule: .asksAtLaunch,
                            message: "decide returned \(asked) on app_launch, before any feature needs "
                                + "notifications; ask on feature_opened, when the user sees why"))
                }
                for decision in decisions { found += textFindings(of: decision, at: location) }
            }
            for status in [PermissionStatus.notDetermined, .denied] {
                let probe = SingleDecision(platform: platform, status: status, timeZone: utc)
                for feature in features {
                    guard let outcome = try? await probe.outcome(of: .featureOpened(feature), policy: policy, now: now) else { continue }
                    let location = "\(file) (feature_opened \(feature), \(status), iOS \(version))"
                    for decision in [outcome.proposed, outcome.decision].compactMap({ $0 }) {
                        found += textFindings(of: decision, at: location)
                    }
                    if status == .notDetermined, isSoftPrompt(outcome.decision) {
                        found += await declineFindings(policy, probe: probe, feature: feature, now: now, at: location)
                    }
                }
            }
            for name in policy.declaredEvents {
                guard let event = try? AppEvent.custom(name) else { continue }
                guard let outcome = try? await fresh.outcome(of: event, policy: policy, now: now) else { continue }
                guard let ask = [outcome.proposed, outcome.decision].compactMap({ $0 }).first(where: asksSystem) else { continue }
                found.append(
                    ReviewFinding(
                        location: "\(file) (\(name), iOS \(version), fresh install)", rule: .coldAskOnAppEvent,
                        message: "decide returned \(ask.action.name) on the app event \(name) with no pre-prompt before it: "
                            + "the system dialog comes up with nothing on screen saying why; show a soft_prompt first, "
                            + "or ask on feature_opened where the user sees what notifications are for"))
            }
        }
        return found
    }

    /// Declining the pre-prompt that `feature_opened feature` shows: a finding when the
    /// policy's answer still brings up the system dialog.
    static func declineFindings(
        _ policy: any Policy, probe: SingleDecision, feature: String, now: Date, at location: String
    ) async -> [ReviewFinding] {
        let events: [AppEvent] = [.featureOpened(feature), .softPromptAnswered(.decline)]
        guard let outcomes = try? await probe.outcomes(of: events, policy: policy, now: now), let answer = outcomes.last else {
            return []
        }
        guard let ask = [answer.proposed, answer.decision].compactMap({ $0 }).first(where: asksSystem) else { return [] }
        return [
            ReviewFinding(
                location: location, rule: .declineStillAsks,
                message: "after the pre-prompt's decline, decide returned \(ask.action.name): the system dialog comes up "
                    + "though the user said no; on decline return none and ask again later")
        ]
    }

    static func isSoftPrompt(_ decision: Decision) -> Bool {
        if case .softPrompt = decision.action { return true }
        return false
    }

    /// Whether a decision brings up the system dialog (a `provisional` request shows none).
    static func asksSystem(_ decision: Decision) -> Bool {
        if case .requestPermission(let options) = decision.action { return !options.contains(.provisional) }
        return false
    }

    /// Whether a decision asks the user: the app's pre-prompt, or a request that shows the
    /// system dialog (a `provisional` request shows none: it asks nobody).
    static func asks(_ decision: Decision) -> Bool {
        switch decision.action {
        case .softPrompt: true
        case .requestPermission(let options): !options.contains(.provisional)
        case .none, .settingsPrompt, .openSettings, .inform, .dismiss: false
        }
    }

    /// The findings of every text of a decision, in every translation it carries.
    static func textFindings(of decision: Decision, at location: String) -> [ReviewFinding] {
        // Each text is judged by its role (a button, a title, a status row's part); a link's
        // text is read as the buttons are, and its address is no prose.
        var texts: [(LocalizedText, String?)] = []
        for (field, text) in decision.texts {
            let parts = field.split(separator: ".")
            guard let leaf = parts.last.map(String.init), leaf != "url" else { continue }
            texts.append((text, parts.contains { $0.hasPrefix("rows[") } ? "row" : leaf))
        }
        var found: [ReviewFinding] = []
        for (text, role) in texts {
            for translation in translations(of: text) { found += textFindings(translation, at: location, role: role) }
        }
        return found
    }

    static func translations(of text: LocalizedText) -> [String] {
        switch text {
        case .plain(let text): [text]
        case .translations(let table): table.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// The features a pack's scenarios open (`feature: NAME` in `tests/*.yaml` next to the
    /// policy), so probes ask where the tests do.
    static func scenarioFeatures(of policy: URL) -> [String] {
        let tests = policy.deletingLastPathComponent().appendingPathComponent("tests")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tests.path)) ?? []
        var features = Set<String>()
        for name in names where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            guard let text = try? String(contentsOf: tests.appendingPathComponent(name), encoding: .utf8) else { continue }
            var rest = text[...]
            while let range = rest.range(of: "feature:") {
                let value = rest[range.upperBound...].drop { $0 == " " || $0 == "\"" || $0 == "'" }
                    .prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
                if !value.isEmpty { features.insert(String(value)) }
                rest = rest[range.upperBound...]
            }
        }
        return features.sorted()
    }
}
