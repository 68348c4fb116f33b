/// `UIUserNotificationType` of iOS 8–9: which kinds of notification the user enabled.
///
/// The raw values are UIKit's (badge 1, sound 2, alert 4), so an adapter can pass
/// `settings.types.rawValue` straight through.
public struct LegacyNotificationTypes: OptionSet, Sendable, Hashable, Codable {
    /// UIKit's bits.
    public let rawValue: UInt
    /// The types of UIKit's raw value.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Badges (`UIUserNotificationTypeBadge`).
    public static let badge = LegacyNotificationTypes(rawValue: 1 << 0)
    /// Sounds.
    public static let sound = LegacyNotificationTypes(rawValue: 1 << 1)
    /// Alerts.
    public static let alert = LegacyNotificationTypes(rawValue: 1 << 2)
    /// All three: what a registration usually asks for.
    public static let all: LegacyNotificationTypes = [.badge, .sound, .alert]

    /// The settings iOS 8–9 can express: alert, sound and badge; everything else is
    /// `not_supported` there.
    public var settings: NotificationSettings {
        NotificationSettings(
            alert: contains(.alert) ? .enabled : .disabled,
            sound: contains(.sound) ? .enabled : .disabled,
            badge: contains(.badge) ? .enabled : .disabled
        )
    }

    /// The types that a set of settings enables (used by the simulated iOS 8–9 device).
    public init(enabledIn settings: NotificationSettings) {
        var types: LegacyNotificationTypes = []
        if settings.alert.isEnabled { types.insert(.alert) }
        if settings.sound.isEnabled { types.insert(.sound) }
        if settings.badge.isEnabled { types.insert(.badge) }
        self = types
    }
}

/// The iOS 8–9 status resolution.
///
/// iOS 8–9 reports only the enabled types, and "no types" means *not asked yet* or *denied*.
/// The app tells them apart with a flag it persists when `application(_:didRegister:)` fires
/// after the dialog (`ledger.legacyRegistered`):
///
/// | types     | flag  | status           |
/// |-----------|-------|------------------|
/// | non-empty | any   | `authorized`     |
/// | empty     | set   | `denied`         |
/// | empty     | unset | `not_determined` |
///
/// A fresh install (no types, no flag) is therefore never reported as denied, and a denial
/// (no types after the callback) never as "not asked".
public func legacyPermissionStatus(types: LegacyNotificationTypes, registered: Bool) -> PermissionStatus {
    if !types.isEmpty { return .authorized }
    return registered ? .denied : .notDetermined
}
