import Foundation
import PermitCore

extension PolicyReview {
    /// The iOS versions the probes run on: today's, the last before the notification-settings
    /// deep link (15.3), and the first with provisional authorization (12.0).
    static let probeVersions = ["17.0", "15.3", "12.0"]

    /// Probe runs of `decide` through the engine on a fresh install: `app_launch` (an ask there
    /// has no feature context), `feature_opened` for each of `features` while undetermined
    /// (the pre-prompt's texts), and while denied (the Settings prompt's texts).
    public static func probe(
        _ policy: any Policy, file: String, features: [String], now: Date = Date(timeIntervalSince1970: 1_790_000_000)
    ) async -> [ReviewFinding] {
        var found: [ReviewFinding] = []
        for version in probeVersions {
            guard let os = try? OSVersion(parsing: version) else { continue }
            let platform = Platform(version: os)
            let launch = SingleDecision(platform: platform, status: .notDetermined, timeZone: TimeZone(identifier: "UTC")!)
            if let outcome = try? await launch.outcome(of: .appLaunch, policy: policy, now: now) {
                let location = "\(file) (app_launch, iOS \(version), fresh install)"
                let decisions = [outcome.proposed, outcome.decision].compactMap { $0 }
                if let ask = decisions.first(where: asks) {
                    found.append(
                        ReviewFinding(
                            location: location, rule: .asksAtLaunch,
                            message: "decide returned \(ask.action.name) on app_launch, before any feature needs "
                                + "notifications; ask on feature_opened, when the user sees why"))
                }
                for decision in decisions { found += textFindings(of: decision, at: location) }
            }
            for status in [PermissionStatus.notDetermined, .denied] {
                let probe = SingleDecision(platform: platform, status: status, timeZone: TimeZone(identifier: "UTC")!)
                for feature in features {
                    guard let outcome = try? await probe.outcome(of: .featureOpened(feature), policy: policy, now: now) else { continue }
                    let location = "\(file) (feature_opened \(feature), \(status), iOS \(version))"
                    for decision in [outcome.proposed, outcome.decision].compactMap({ $0 }) {
                        found += textFindings(of: decision, at: location)
                    }
                }
            }
        }
        return found
    }

    /// Whether a decision asks the user: the app's pre-prompt, or a request that shows the
    /// system dialog (a `provisional` request shows none: it asks nobody).
    static func asks(_ decision: Decision) -> Bool {
        switch decision.action {
        case .softPrompt: true
        case .requestPermission(let options): !options.contains(.provisional)
        case .none, .settingsPrompt, .openSettings: false
        }
    }

    /// The findings of every text of a decision, in every translation it carries.
    static func textFindings(of decision: Decision, at location: String) -> [ReviewFinding] {
        var texts: [(LocalizedText, String?)] = []
        switch decision.action {
        case .softPrompt(let prompt):
            texts = [(prompt.title, "title"), (prompt.message, "message"), (prompt.accept, "accept")]
            if let decline = prompt.decline { texts.append((decline, "decline")) }
        case .settingsPrompt(let prompt):
            texts = [(prompt.title, "title"), (prompt.message, "message"), (prompt.open, "open")]
            if let cancel = prompt.cancel { texts.append((cancel, "cancel")) }
        case .none, .requestPermission, .openSettings:
            return []
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

    /// The features a pack's scenarios open (`feature: NAME`), so probes ask where the tests do;
    /// `notifications_probe` when there are none.
    public static func features(inScenariosOf policy: URL) -> [String] {
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
        return features.isEmpty ? ["notifications_probe"] : features.sorted()
    }
}
