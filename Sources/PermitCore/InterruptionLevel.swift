/// How urgently a reminder asks for attention (iOS 15+, `UNNotificationInterruptionLevel`),
/// as a policy's reminder names it (docs/platform.md S-05).
public enum InterruptionLevel: String, Sendable, Hashable, Codable, CaseIterable {
    /// Delivered silently into Notification Center; no sound, the screen stays dark.
    case passive
    /// The default: sound and a lit screen.
    case active
    /// Breaks through Focus and Scheduled Summary; needs the Time Sensitive Notifications entitlement.
    case timeSensitive = "time_sensitive"
    /// Breaks through the mute switch and Focus; needs the critical-alerts entitlement.
    case critical

    /// The level iOS delivers a reminder with, given what the policy asked for: none before
    /// iOS 15 (the OS has no levels, so the adapter sets none); time-sensitive only while the
    /// `time_sensitive` setting is enabled (the entitlement, and the user's switch), critical only
    /// while `critical_alert` is; otherwise such a reminder arrives as an active one.
    public static func delivered(
        _ requested: InterruptionLevel?, on version: OSVersion, settings: NotificationSettings
    ) -> InterruptionLevel? {
        guard let requested, version >= OSVersion(major: 15) else { return nil }
        switch requested {
        case .passive, .active: return requested
        case .timeSensitive: return settings.timeSensitive == .enabled ? .timeSensitive : .active
        case .critical: return settings.criticalAlert == .enabled ? .critical : .active
        }
    }
}
