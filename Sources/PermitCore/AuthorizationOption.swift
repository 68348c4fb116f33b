/// One option of a permission request (`decision.options`), named as policies write it.
public enum AuthorizationOption: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case alert, sound, badge
    case carPlay = "car_play"
    case criticalAlert = "critical_alert"
    case provisional
    case providesAppSettings = "provides_app_settings"

    public var description: String { rawValue }
}
