import Foundation

/// The mapping from Apple's raw values to Permit's model, kept here in cross-platform code so
/// that it is tested on every platform; the `UserNotifications` adapter only passes raw values.
public enum AppleMapping {
    /// `UNAuthorizationStatus`: notDetermined 0, denied 1, authorized 2, provisional 3,
    /// ephemeral 4. An unknown future value maps to `nil`; callers treat it as `unknown`.
    public static func status(fromAuthorizationStatus raw: Int) -> PermissionStatus? {
        switch raw {
        case 0: .notDetermined
        case 1: .denied
        case 2: .authorized
        case 3: .provisional
        case 4: .ephemeral
        default: nil
        }
    }

    /// `UNNotificationSetting`: notSupported 0, disabled 1, enabled 2. Unknown values are
    /// treated as `not_supported`, the safe reading.
    public static func setting(fromRaw raw: Int) -> SettingValue {
        switch raw {
        case 1: .disabled
        case 2: .enabled
        default: .notSupported
        }
    }

    /// Builds the settings snapshot from the raw values of a `UNNotificationSettings`. Settings
    /// the running OS does not have are passed as `nil` and become `not_supported`.
    public static func settings(
        alert: Int, sound: Int, badge: Int, lockScreen: Int, notificationCenter: Int,
        carPlay: Int, criticalAlert: Int?, timeSensitive: Int?, scheduledDelivery: Int?
    ) -> NotificationSettings {
        NotificationSettings(
            alert: setting(fromRaw: alert),
            sound: setting(fromRaw: sound),
            badge: setting(fromRaw: badge),
            lockScreen: setting(fromRaw: lockScreen),
            notificationCenter: setting(fromRaw: notificationCenter),
            carPlay: setting(fromRaw: carPlay),
            criticalAlert: criticalAlert.map(setting(fromRaw:)) ?? .notSupported,
            timeSensitive: timeSensitive.map(setting(fromRaw:)) ?? .notSupported,
            scheduledDelivery: scheduledDelivery.map(setting(fromRaw:)) ?? .notSupported
        )
    }

    /// `UNAuthorizationOptions` raw bits: badge 1, sound 2, alert 4, carPlay 8,
    /// criticalAlert 16, providesAppNotificationSettings 32, provisional 64.
    public static func authorizationOptionsRawValue(_ options: [AuthorizationOption]) -> UInt {
        options.reduce(0) { bits, option in
            bits
                | {
                    switch option {
                    case .badge: 1 << 0
                    case .sound: 1 << 1
                    case .alert: 1 << 2
                    case .carPlay: 1 << 3
                    case .criticalAlert: 1 << 4
                    case .providesAppSettings: 1 << 5
                    case .provisional: 1 << 6
                    }
                }()
        }
    }

    /// The `UIUserNotificationType` bits an iOS 8–9 registration asks for: only alert, sound
    /// and badge exist there; other options are ignored.
    public static func legacyTypes(for options: [AuthorizationOption]) -> LegacyNotificationTypes {
        var types: LegacyNotificationTypes = []
        if options.contains(.alert) { types.insert(.alert) }
        if options.contains(.sound) { types.insert(.sound) }
        if options.contains(.badge) { types.insert(.badge) }
        return types
    }

    /// The date components of a `UNCalendarNotificationTrigger` for a planned fire date: the
    /// year, month, day, hour and minute the wall clock shows at that instant in `timeZone`.
    ///
    /// Read from the instant, never rebuilt as "start of day plus hours": on a day without a
    /// local midnight (America/Santiago 2026-09-06) the day starts at 01:00, and that arithmetic
    /// fires an hour late. The components carry no time zone, so the trigger keeps the wall
    /// time when the device changes zone (floating local time, as iOS matches them).
    public static func triggerComponents(for fireDate: Date, in timeZone: TimeZone) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.dateComponents([.year, .month, .day, .hour, .minute], from: fireDate)
    }

    /// When a notification scheduled for `fireDate` in `old` fires once the device is in `new`:
    /// the trigger's components carry no time zone, so it fires at the same wall-clock time in
    /// the new zone (floating local time). A wall time the new zone skips (a spring-forward
    /// gap) fires at the first valid time after it, as `Calendar` resolves it.
    public static func floatingFireDate(_ fireDate: Date, scheduledIn old: TimeZone, firingIn new: TimeZone) -> Date {
        guard old != new else { return fireDate }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = new
        return calendar.date(from: triggerComponents(for: fireDate, in: old)) ?? fireDate
    }

    /// The `UNNotificationInterruptionLevel` raw value of a reminder's level (passive 0,
    /// active 1, timeSensitive 2, critical 3); the adapter sets it on iOS 15+ only.
    public static func interruptionLevelRawValue(_ level: InterruptionLevel) -> UInt {
        switch level {
        case .passive: 0
        case .active: 1
        case .timeSensitive: 2
        case .critical: 3
        }
    }

    /// The level of a `UNNotificationInterruptionLevel` raw value, by the table above (one
    /// table, read both ways); `nil` for a value this version does not know (a reminder read
    /// with it differs from any planned one, so the engine replaces it with what the policy asks for).
    public static func interruptionLevel(fromRawValue raw: UInt) -> InterruptionLevel? {
        InterruptionLevel.allCases.first { interruptionLevelRawValue($0) == raw }
    }
}
