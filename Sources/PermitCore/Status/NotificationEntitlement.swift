/// A notification entitlement the app is signed with. iOS turns the matching setting on only for
/// an app that has it, whatever the request asks for (docs/platform.md S-02, S-03).
public enum NotificationEntitlement: String, Sendable, Hashable, CaseIterable, Codable {
    /// `com.apple.developer.usernotifications.critical-alerts`, granted by Apple on request.
    case criticalAlerts = "critical_alerts"
    /// `com.apple.developer.usernotifications.time-sensitive` (iOS 15+), the Time Sensitive
    /// Notifications capability.
    case timeSensitive = "time_sensitive"
}
