import Foundation

/// Something that happened in the app, handed to the engine and then to the policy
/// (`ctx.event`).
public enum AppEvent: Sendable, Hashable, CustomStringConvertible {
    /// The app started (a cold launch). The engine reads the status for the first time here.
    case appLaunch
    /// The app came back to the foreground: the moment to notice a change made in Settings,
    /// which iOS reports with no callback.
    case appForeground
    /// The app went to the background: no system dialog can appear until it returns.
    case appBackground
    /// A screen or feature that would benefit from notifications opened.
    case featureOpened(String)
    /// That screen or feature closed (the user left it): the moment to take a row that belongs
    /// to it off screen, or to judge whether the visit went well. Counts nothing in the ledger.
    case featureClosed(String)
    /// The user answered the app's own soft pre-prompt.
    case softPromptAnswered(SoftPromptAnswer)
    /// The system dialog was answered (on iOS 8–9: the register callback fired).
    case systemPromptAnswered(granted: Bool)
    /// The user answered the app's "open Settings?" prompt.
    case settingsPromptAnswered(SettingsPromptAnswer)
    /// The user closed the app's information page (`action = "inform"`): its button, or
    /// dismissed without it.
    case informAnswered(InformAnswer)
    /// The system posted its significant-time-change notification
    /// (`UIApplication.significantTimeChangeNotification`): the device changed time zone (or
    /// the clock jumped). It carries the zone now in force (`TimeZone.current` after the
    /// change); from it on, the engine's local day, `prompts_today` and reminder planning follow
    /// that zone (docs/platform.md Z-01).
    case significantTimeChange(timeZone: TimeZone)
    /// The user tapped the link to the app's own notification settings that iOS 12+ shows in
    /// Settings › Notifications once the app asked with `provides_app_settings`
    /// (`userNotificationCenter(_:openSettingsFor:)`); the app opens (docs/platform.md N-01).
    case notificationSettingsOpened
    /// The app ran in the background: a `BGAppRefreshTask`, a background fetch, a silent push,
    /// or a cycle of its own. The moment to notice a change made in Settings while the user is
    /// away; nothing can be shown on screen (the `app-not-active` guardrail voids what would),
    /// and the engine counts the app as in the background from it on.
    case backgroundRefresh
    /// An event of the app's own (`lesson_completed`), made with `AppEvent.custom(_:properties:)`,
    /// which checks its name and properties.
    case custom(CustomEvent)

    /// An event of the app's own: `engine.handle(try .custom("lesson_completed", properties: ["count": 2]))`.
    /// The ledger counts it (`ctx.history.events.lesson_completed`); the policy declares the
    /// names it understands (`events = { "lesson_completed" }`).
    public static func custom(_ name: String, properties: [String: PolicyValue] = [:]) throws(CustomEventError) -> AppEvent {
        .custom(try CustomEvent(name, properties: properties))
    }

    /// The event's name as policies see it (`ctx.event.name`).
    public var name: String {
        switch self {
        case .appLaunch: "app_launch"
        case .appForeground: "app_foreground"
        case .appBackground: "app_background"
        case .featureOpened: "feature_opened"
        case .featureClosed: "feature_closed"
        case .softPromptAnswered: "soft_prompt_answered"
        case .systemPromptAnswered: "system_prompt_answered"
        case .settingsPromptAnswered: "settings_prompt_answered"
        case .informAnswered: "inform_answered"
        case .significantTimeChange: "significant_time_change"
        case .notificationSettingsOpened: "notification_settings_opened"
        case .backgroundRefresh: "background_refresh"
        case .custom(let event): event.name
        }
    }

    /// Every built-in event name, for validation and help texts.
    public static let names = [
        "app_launch", "app_foreground", "app_background", "feature_opened", "feature_closed",
        "soft_prompt_answered", "system_prompt_answered", "settings_prompt_answered", "inform_answered",
        "significant_time_change", "notification_settings_opened", "background_refresh",
    ]

    /// The feature, for `feature_opened` and `feature_closed`.
    public var feature: String? {
        switch self {
        case .featureOpened(let feature), .featureClosed(let feature): feature
        default: nil
        }
    }

    /// The event's own fields besides `name`, as policies see them.
    public var fields: [(name: String, value: PolicyValue)] {
        switch self {
        case .appLaunch, .appForeground, .appBackground, .notificationSettingsOpened, .backgroundRefresh: []
        case .significantTimeChange(let zone): [("time_zone", .string(zone.permitIdentifier))]
        case .featureOpened(let feature), .featureClosed(let feature): [("feature", .string(feature))]
        case .softPromptAnswered(let answer): [("answer", .string(answer.rawValue))]
        case .systemPromptAnswered(let granted): [("granted", .bool(granted))]
        case .settingsPromptAnswered(let answer): [("answer", .string(answer.rawValue))]
        case .informAnswered(let answer): [("answer", .string(answer.rawValue))]
        case .custom(let event): [("properties", .table(event.properties))]
        }
    }

    /// Events after which the core re-reads the status before the policy runs. The answer to
    /// the system dialog changes the status too, so it is re-read then as well; and the user
    /// arrives from Settings through its link to the app's notification settings; and an app
    /// that runs in the background reads what the user changed in Settings meanwhile.
    var rereadsStatus: Bool {
        switch self {
        case .appLaunch, .appForeground, .systemPromptAnswered, .notificationSettingsOpened, .backgroundRefresh: true
        default: false
        }
    }

    /// Whether the user caused the event in the app: opened a screen, did something the app
    /// reports as its own event, or answered one of the app's prompts. Only then may a decision
    /// open Settings at once (`open_settings`); a launch, a return to the foreground, leaving,
    /// a system event, a run in the background or the system dialog's answer are not taps in
    /// the app; nor is closing a screen, which is leaving it, not asking for anything.
    public var isUserInitiated: Bool {
        switch self {
        case .featureOpened, .custom, .softPromptAnswered, .settingsPromptAnswered, .informAnswered: true
        case .appLaunch, .appForeground, .appBackground, .systemPromptAnswered, .significantTimeChange,
            .notificationSettingsOpened, .featureClosed, .backgroundRefresh:
            false
        }
    }

    /// Events after which `plan_reminders` runs while the status is granted.
    var plansReminders: Bool { rereadsStatus }

    /// The name and its field, as timelines print it (`feature_opened feature="x"`,
    /// `lesson_completed count=2`).
    public var description: String {
        if case .custom(let event) = self {
            let extra = event.properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return ([event.name] + extra).joined(separator: " ")
        }
        let extra = fields.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
        return extra.isEmpty ? name : "\(name) \(extra)"
    }
}

/// An answer to the soft pre-prompt.
public enum SoftPromptAnswer: String, Sendable, Codable, CaseIterable {
    /// Accepted, declined, or dismissed without a choice (the app's own prompt closed).
    case accept, decline, dismiss
    /// Its web link (`link`) opened: the host opened the page, and the prompt stays on screen.
    case link
}

/// An answer to the app's information page.
public enum InformAnswer: String, Sendable, Codable, CaseIterable {
    /// Its button, or dismissed without it (swiped away, the app's own ✕): the page is gone.
    case ok, dismiss
    /// Its second button (`open`): the app opens Settings at the page's deep link, and the
    /// page stays on screen for the user's return.
    case open
    /// Its web link (`link`) opened: the host opened the page, and the page stays on screen.
    case link
}

/// An answer to the settings prompt.
public enum SettingsPromptAnswer: String, Sendable, Codable, CaseIterable {
    /// Opened Settings, cancelled, or dismissed without a choice.
    case open, cancel, dismiss
    /// Its web link (`link`) opened: the host opened the page, and the prompt stays on screen.
    case link
}

extension TimeZone {
    /// The zone's IANA name as policies and scenarios write it: Foundation names UTC "GMT".
    public var permitIdentifier: String { identifier == "GMT" ? "UTC" : identifier }
}
