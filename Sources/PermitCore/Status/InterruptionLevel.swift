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
    /// iOS 15 (the OS has no levels, so the adapter sets none); from iOS 15, `active` when the
    /// policy asked for none (iOS's default level, which a pending request then reports: what
    /// the engine compares with what is pending must be what reads back, or every plan would
    /// replace it); time-sensitive only while the `time_sensitive` setting is enabled (the
    /// entitlement, and the user's switch), critical only while `critical_alert` is; otherwise
    /// such a reminder arrives as an active one.
    public static func delivered(
        _ requested: InterruptionLevel?, on version: OSVersion, settings: NotificationSettings
    ) -> InterruptionLevel? {
        guard version >= OSVersion(major: 15) else { return nil }
        guard let requested else { return .active }
        switch requested {
        case .passive, .active: return requested
        case .timeSensitive: return settings.timeSensitive == .enabled ? .timeSensitive : .active
        case .critical: return settings.criticalAlert == .enabled ? .critical : .active
        }
    }
}
