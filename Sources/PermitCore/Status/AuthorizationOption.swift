/// One option of a permission request (`decision.options`), named as policies write it.
public enum AuthorizationOption: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Alerts, sounds and badges: what most apps ask for.
    case alert, sound, badge
    /// Notifications in CarPlay.
    case carPlay = "car_play"
    /// Critical alerts, which need an Apple entitlement.
    case criticalAlert = "critical_alert"
    /// iOS 12+: granted without a dialog, delivered quietly; the user decides later.
    case provisional
    /// Tells iOS the app has its own notification settings screen (iOS 12+).
    case providesAppSettings = "provides_app_settings"

    /// The Lua name (`car_play`).
    public var description: String { rawValue }
}
