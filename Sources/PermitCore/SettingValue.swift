/// The state of one notification setting, as `UNNotificationSetting` reports it.
public enum SettingValue: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case enabled
    case disabled
    /// The setting does not exist on this OS version or for this app.
    case notSupported = "not_supported"

    public var isEnabled: Bool { self == .enabled }
    public var description: String { rawValue }
}
