/// The state of one notification setting, as `UNNotificationSetting` reports it.
public enum SettingValue: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// On.
    case enabled
    /// Off.
    case disabled
    /// The setting does not exist on this OS version or for this app.
    case notSupported = "not_supported"

    /// Whether the setting is on.
    public var isEnabled: Bool { self == .enabled }
    /// The Lua name.
    public var description: String { rawValue }
}
