import Foundation
import PermitCore

/// Events as people write them: a name and the fields it takes. Scenario steps and
/// `permit decide` both read events here, so the two cannot drift apart; each caller says
/// where a problem is (a YAML field, a flag) and in its own words.
package enum EventInput {
    /// What is wrong with an event as written.
    package enum Problem: Error, Equatable {
        /// No event has this name.
        case unknownName
        /// The event needs this field (`feature`, `answer`, `granted`).
        case missing(field: String)
        /// The field was given to an event that does not take it.
        case notTaken(field: String)
        case emptyFeature
        /// The answer is not one of these.
        case invalidAnswer(expected: [String])
        /// An app event of its own whose properties break a rule (the message says which).
        case invalidProperties(String)
    }

    /// The event named `name` with its fields; a field the event does not take is a mistake,
    /// not something to ignore.
    ///
    /// `significant_time_change` carries the device's zone after the change: `timeZone`, which a
    /// caller takes from where it names the device's zone (a scenario's `timezone:` step,
    /// `permit decide --timezone`), so it is not a field the event is written with.
    ///
    /// A name that is not built-in but is written like one of the app's own events
    /// (`lesson_completed`) is that event with `properties`; only its caller knows whether the
    /// policy declares it (`declaredEvents`).
    package static func event(
        named name: String, feature: String? = nil, answer: String? = nil, granted: Bool? = nil,
        timeZone: TimeZone? = nil, properties: [String: PolicyValue]? = nil
    ) throws(Problem) -> AppEvent {
        if !AppEvent.names.contains(name), CustomEvent.problem(withName: name) == nil {
            let given = [("feature", feature != nil), ("answer", answer != nil), ("granted", granted != nil)]
            if let extra = given.first(where: { $0.1 }) { throw .notTaken(field: extra.0) }
            do throws(CustomEventError) {
                return try .custom(name, properties: properties ?? [:])
            } catch {
                throw .invalidProperties(error.message)
            }
        }
        if properties != nil, AppEvent.names.contains(name) { throw .notTaken(field: "properties") }
        let given = [("feature", feature != nil), ("answer", answer != nil), ("granted", granted != nil)]
        let takes: String? =
            switch name {
            case "feature_opened", "feature_closed": "feature"
            case "soft_prompt_answered", "settings_prompt_answered", "inform_answered": "answer"
            case "system_prompt_answered": "granted"
            default: nil
            }
        guard AppEvent.names.contains(name) else { throw .unknownName }
        if let extra = given.first(where: { $0.1 && $0.0 != takes }) { throw .notTaken(field: extra.0) }
        switch name {
        case "app_launch": return .appLaunch
        case "app_foreground": return .appForeground
        case "app_background": return .appBackground
        case "notification_settings_opened": return .notificationSettingsOpened
        case "background_refresh": return .backgroundRefresh
        case "significant_time_change":
            guard let timeZone else { throw .missing(field: "timezone") }
            return .significantTimeChange(timeZone: timeZone)
        case "feature_opened", "feature_closed":
            guard let feature else { throw .missing(field: "feature") }
            guard !feature.isEmpty else { throw .emptyFeature }
            return name == "feature_opened" ? .featureOpened(feature) : .featureClosed(feature)
        case "system_prompt_answered":
            guard let granted else { throw .missing(field: "granted") }
            return .systemPromptAnswered(granted: granted)
        case "soft_prompt_answered":
            return .softPromptAnswered(try parseAnswer(answer, as: SoftPromptAnswer.self))
        case "inform_answered":
            return .informAnswered(try parseAnswer(answer, as: InformAnswer.self))
        default:
            return .settingsPromptAnswered(try parseAnswer(answer, as: SettingsPromptAnswer.self))
        }
    }

    private static func parseAnswer<Answer: RawRepresentable<String> & CaseIterable>(
        _ text: String?, as: Answer.Type
    ) throws(Problem) -> Answer {
        guard let text else { throw .missing(field: "answer") }
        guard let answer = Answer(rawValue: text) else { throw .invalidAnswer(expected: Answer.allCases.map(\.rawValue)) }
        return answer
    }
}
