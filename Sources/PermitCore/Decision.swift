/// What a policy decided for one event.
public struct Decision: Sendable, Hashable {
    public var action: Action
    /// Why, in the policy's words; shown by explain output.
    public var reason: String?
    /// Keys to store in `ctx.state` (a `nil` value deletes the key). Scalars only, 4 KiB in all.
    public var remember: [String: PolicyValue?]

    public init(_ action: Action, reason: String? = nil, remember: [String: PolicyValue?] = [:]) {
        self.action = action
        self.reason = reason
        self.remember = remember
    }

    public static let none = Decision(.none)

    /// The UX to show. The prompts are boxed (`indirect`): most decisions are `none`, and an
    /// unboxed prompt made every `Decision` and `Outcome` several hundred bytes to copy per event.
    public enum Action: Sendable, Hashable {
        case none
        indirect case softPrompt(SoftPrompt)
        case requestPermission(options: [AuthorizationOption])
        indirect case settingsPrompt(SettingsPrompt)

        /// The action's name as policies write it.
        public var name: String {
            switch self {
            case .none: "none"
            case .softPrompt: "soft_prompt"
            case .requestPermission: "request_permission"
            case .settingsPrompt: "settings_prompt"
            }
        }

        public static let names = ["none", "soft_prompt", "request_permission", "settings_prompt"]
    }
}

/// How the app presents a prompt of its own.
public enum Presentation: String, Sendable, Codable, CaseIterable {
    case alert, banner, sheet
}

/// The app's own "may we send you notifications?" screen, shown before the system dialog.
public struct SoftPrompt: Sendable, Hashable {
    public var title: LocalizedText
    public var message: LocalizedText
    public var accept: LocalizedText
    public var decline: LocalizedText
    public var presentation: Presentation
    /// A copy identifier for A/B tests.
    public var variant: String?

    public init(
        title: LocalizedText, message: LocalizedText, accept: LocalizedText, decline: LocalizedText,
        presentation: Presentation = .alert, variant: String? = nil
    ) {
        self.title = title
        self.message = message
        self.accept = accept
        self.decline = decline
        self.presentation = presentation
        self.variant = variant
    }
}

/// Which Settings page a settings prompt opens. Only Apple's public URLs: `App-Prefs:` and
/// `prefs:root=` are private API and get an app rejected, so they cannot be expressed.
public enum DeepLink: String, Sendable, Codable, CaseIterable {
    /// `UIApplication.openSettingsURLString` (iOS 8+): the app's own Settings page.
    case appSettings = "app_settings"
    /// `UIApplicationOpenNotificationSettingsURLString` (iOS 15.4+): its notification settings.
    case notificationSettings = "notification_settings"
}

/// The app's "notifications are off; open Settings?" prompt.
public struct SettingsPrompt: Sendable, Hashable {
    public var title: LocalizedText
    public var message: LocalizedText
    public var open: LocalizedText
    public var cancel: LocalizedText
    public var presentation: Presentation
    public var deepLink: DeepLink

    public init(
        title: LocalizedText, message: LocalizedText, open: LocalizedText, cancel: LocalizedText,
        presentation: Presentation = .alert, deepLink: DeepLink = .appSettings
    ) {
        self.title = title
        self.message = message
        self.open = open
        self.cancel = cancel
        self.presentation = presentation
        self.deepLink = deepLink
    }
}
