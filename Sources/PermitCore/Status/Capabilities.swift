/// What the OS version (and App Clip-ness) allows (`ctx.capabilities`).
///
/// Derived, never configured: a policy asks "can I offer the notification-settings link?"
/// instead of comparing version numbers itself.
public struct Capabilities: Sendable, Hashable, Codable {
    /// `UNUserNotificationCenter` exists (iOS 10+); below it the app reads registered types.
    public let userNotifications: Bool
    /// Quiet delivery granted without a dialog (iOS 12+).
    public let provisional: Bool
    /// Ephemeral authorization (iOS 14+, App Clips only).
    public let ephemeral: Bool
    /// `UIApplicationOpenNotificationSettingsURLString` opens the app's notification settings (iOS 15.4+).
    public let notificationSettingsLink: Bool
    /// The time-sensitive interruption level (iOS 15+).
    public let timeSensitive: Bool

    /// What an iOS version (and an App Clip) allows.
    public init(version: OSVersion, isAppClip: Bool = false) {
        userNotifications = version >= OSVersion(major: 10)
        provisional = version >= OSVersion(major: 12)
        ephemeral = isAppClip && version >= OSVersion(major: 14)
        notificationSettingsLink = version >= OSVersion(major: 15, minor: 4)
        timeSensitive = version >= OSVersion(major: 15)
    }

    /// Each capability with its Lua name, in a stable order.
    public var namedValues: [(name: String, value: Bool)] {
        [
            ("user_notifications", userNotifications),
            ("provisional", provisional),
            ("ephemeral", ephemeral),
            ("notification_settings_link", notificationSettingsLink),
            ("time_sensitive", timeSensitive),
        ]
    }

    private enum CodingKeys: String, CodingKey {
        case userNotifications = "user_notifications"
        case provisional, ephemeral
        case notificationSettingsLink = "notification_settings_link"
        case timeSensitive = "time_sensitive"
    }
}

/// The device a policy runs for (`ctx.platform` plus what the core needs besides).
public struct Platform: Sendable, Hashable, Codable {
    /// Always `"ios"` today; kept so policies can be shared with other platforms later.
    public let os: String
    /// The iOS version.
    public let version: OSVersion
    /// Whether the app is an App Clip, which may get ephemeral authorization (iOS 14+).
    public let isAppClip: Bool

    /// A device running `version`; `isAppClip` for an App Clip.
    public init(version: OSVersion, isAppClip: Bool = false) {
        self.os = "ios"
        self.version = version
        self.isAppClip = isAppClip
    }

    /// What this platform allows (`ctx.capabilities`).
    public var capabilities: Capabilities { Capabilities(version: version, isAppClip: isAppClip) }

    /// iOS 8–9: status comes from registered types plus the app's own asked-flag.
    public var usesLegacyRegistration: Bool { version < OSVersion(major: 10) }
}
