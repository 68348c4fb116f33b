/// The granular notification settings (`ctx.settings`).
///
/// Each one is `enabled`, `disabled` or `not_supported`. On iOS 8–9 only alert, sound and
/// badge exist (read from the registered types); the rest are `not_supported` there.
public struct NotificationSettings: Sendable, Codable, Hashable {
    /// Alerts on screen.
    public var alert: SettingValue
    /// Sounds.
    public var sound: SettingValue
    /// The app icon's badge.
    public var badge: SettingValue
    /// Notifications on the lock screen.
    public var lockScreen: SettingValue
    /// Notifications in Notification Center.
    public var notificationCenter: SettingValue
    /// Notifications in CarPlay.
    public var carPlay: SettingValue
    /// Critical alerts (an entitlement).
    public var criticalAlert: SettingValue
    /// Time-sensitive notifications (iOS 15+).
    public var timeSensitive: SettingValue
    /// Scheduled summary delivery (iOS 15+).
    public var scheduledDelivery: SettingValue
    /// The app's Live Activities switch (iOS 16.1+, `ActivityAuthorizationInfo`): a switch of its
    /// own, apart from the notification permission, so no authorization changes it
    /// (docs/platform.md LA-01).
    public var liveActivities: SettingValue = .notSupported

    /// Every setting name as policies see it, in a stable order.
    public static let names: [String] = Setting.allCases.map(\.rawValue)

    /// One setting, by name, so that tables of settings can be built and read generically.
    public enum Setting: String, Sendable, CaseIterable, Codable, CodingKey {
        /// Alerts, sounds, badges.
        case alert, sound, badge
        /// The lock screen.
        case lockScreen = "lock_screen"
        /// Notification Center.
        case notificationCenter = "notification_center"
        /// CarPlay.
        case carPlay = "car_play"
        /// Critical alerts.
        case criticalAlert = "critical_alert"
        /// Time-sensitive notifications.
        case timeSensitive = "time_sensitive"
        /// Scheduled summary delivery.
        case scheduledDelivery = "scheduled_delivery"
        /// Live Activities (not a notification setting: the app's own switch in Settings).
        case liveActivities = "live_activities"

        /// The settings of the notification permission: every one but Live Activities, whose
        /// switch no authorization changes.
        public static let notificationSettings = allCases.filter { $0 != .liveActivities }

        /// The first iOS version on which the setting exists.
        public var introducedIn: OSVersion {
            switch self {
            case .alert, .sound, .badge: OSVersion(major: 8)
            case .lockScreen, .notificationCenter, .carPlay: OSVersion(major: 10)
            case .criticalAlert: OSVersion(major: 12)
            case .timeSensitive, .scheduledDelivery: OSVersion(major: 15)
            case .liveActivities: OSVersion(major: 16, minor: 1)
            }
        }

        /// The value an app asks the user to set in Settings (a settings prompt's
        /// `for_setting`): `enabled` for every setting but Scheduled Summary, which an app wants
        /// `disabled`, so that its notifications come at once rather than in the user's next
        /// summary (docs/platform.md S-04).
        public var wantedValue: SettingValue { self == .scheduledDelivery ? .disabled : .enabled }

        /// The value that differs from `wantedValue` and a switch in Settings can change:
        /// `disabled` for most settings, `enabled` for Scheduled Summary. A setting that is
        /// `not_supported` has no switch to turn.
        public var unwantedValue: SettingValue { self == .scheduledDelivery ? .enabled : .disabled }
    }

    /// Settings with each value given; the rest `not_supported`.
    public init(
        alert: SettingValue = .notSupported, sound: SettingValue = .notSupported,
        badge: SettingValue = .notSupported, lockScreen: SettingValue = .notSupported,
        notificationCenter: SettingValue = .notSupported, carPlay: SettingValue = .notSupported,
        criticalAlert: SettingValue = .notSupported, timeSensitive: SettingValue = .notSupported,
        scheduledDelivery: SettingValue = .notSupported
    ) {
        self.alert = alert
        self.sound = sound
        self.badge = badge
        self.lockScreen = lockScreen
        self.notificationCenter = notificationCenter
        self.carPlay = carPlay
        self.criticalAlert = criticalAlert
        self.timeSensitive = timeSensitive
        self.scheduledDelivery = scheduledDelivery
    }

    /// Whether a delivered notification's title and body are seen anywhere: as an alert, on the
    /// lock screen, or in Notification Center (where provisional notifications arrive quietly,
    /// with their content).
    public var showsContent: Bool {
        alert == .enabled || lockScreen == .enabled || notificationCenter == .enabled
    }

    /// All settings `not_supported`: what an app knows before it has read anything.
    public static let unsupported = NotificationSettings()

    /// The value of one setting, by name: how scenario files and `changeInSettings` address them.
    public subscript(setting: Setting) -> SettingValue {
        get {
            switch setting {
            case .alert: alert
            case .sound: sound
            case .badge: badge
            case .lockScreen: lockScreen
            case .notificationCenter: notificationCenter
            case .carPlay: carPlay
            case .criticalAlert: criticalAlert
            case .timeSensitive: timeSensitive
            case .scheduledDelivery: scheduledDelivery
            case .liveActivities: liveActivities
            }
        }
        set {
            switch setting {
            case .alert: alert = newValue
            case .sound: sound = newValue
            case .badge: badge = newValue
            case .lockScreen: lockScreen = newValue
            case .notificationCenter: notificationCenter = newValue
            case .carPlay: carPlay = newValue
            case .criticalAlert: criticalAlert = newValue
            case .timeSensitive: timeSensitive = newValue
            case .scheduledDelivery: scheduledDelivery = newValue
            case .liveActivities: liveActivities = newValue
            }
        }
    }

    /// The settings iOS reports for a given authorization on a given version. Before the app has
    /// asked (`not_determined`) every setting is `not_supported` (docs/platform.md S-06). After:
    /// the settings the version supports are enabled when authorized, disabled when denied;
    /// provisional delivers quietly (notification centre only). CarPlay is `not_supported` unless
    /// a request asked for it, critical alerts `not_supported` without their entitlement and
    /// disabled until a request asks for them (S-02); time-sensitive needs its entitlement
    /// (S-03); Scheduled Summary is the user's choice and starts off (S-04). Live Activities are
    /// left `not_supported`: their switch follows no authorization (LA-01), so the device keeps
    /// it apart.
    public static func typical(
        for status: PermissionStatus, on version: OSVersion, entitlements: Set<NotificationEntitlement> = []
    ) -> NotificationSettings {
        var settings = NotificationSettings()
        if status == .notDetermined || status == .unknown { return settings }
        for setting in Setting.notificationSettings where version >= setting.introducedIn {
            let value: SettingValue
            switch (status, setting) {
            case (_, .carPlay): value = .notSupported
            case (_, .criticalAlert): value = entitlements.contains(.criticalAlerts) ? .disabled : .notSupported
            case (.authorized, .scheduledDelivery), (.ephemeral, .scheduledDelivery): value = .disabled
            case (.authorized, .timeSensitive), (.ephemeral, .timeSensitive):
                value = entitlements.contains(.timeSensitive) ? .enabled : .disabled
            case (.authorized, _), (.ephemeral, _): value = .enabled
            case (.provisional, _): value = setting == .notificationCenter ? .enabled : .disabled
            case (.unknown, _), (.notDetermined, _), (.denied, _): value = .disabled
            }
            settings[setting] = value
        }
        return settings
    }

    /// The settings a grant turns on: alert, sound, badge and CarPlay only when the request asked
    /// for them (`UNAuthorizationOptions` names what the app may do; CarPlay not asked for reads
    /// `not_supported`); critical alerts only when asked for *and* entitled, `not_supported`
    /// without the entitlement (S-02); the lock screen and Notification Center with the alert
    /// (Permit's assumption, docs/platform.md S-01). Used when the user taps Allow, and when
    /// "Deliver Prominently" promotes a provisional grant, which turns on what the provisional
    /// request asked for (docs/platform.md P-02).
    public static func granted(
        options: [AuthorizationOption], on version: OSVersion, entitlements: Set<NotificationEntitlement> = []
    ) -> NotificationSettings {
        var settings = typical(for: .authorized, on: version, entitlements: entitlements)
        let requested: [Setting: AuthorizationOption] = [
            .alert: .alert, .sound: .sound, .badge: .badge, .lockScreen: .alert, .notificationCenter: .alert,
            .carPlay: .carPlay, .criticalAlert: .criticalAlert,
        ]
        for (setting, option) in requested where version >= setting.introducedIn {
            settings[setting] = options.contains(option) ? .enabled : (setting == .carPlay ? .notSupported : .disabled)
        }
        if version >= Setting.criticalAlert.introducedIn, !entitlements.contains(.criticalAlerts) {
            settings.criticalAlert = .notSupported
        }
        return settings
    }

    /// Missing keys decode as `not_supported`, so a partial table (a scenario's `initial`) works.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Setting.self)
        self.init()
        for setting in Setting.allCases {
            self[setting] = try container.decodeIfPresent(SettingValue.self, forKey: setting) ?? .notSupported
        }
    }

    /// Encodes with the Lua names as keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Setting.self)
        for setting in Setting.allCases { try container.encode(self[setting], forKey: setting) }
    }
}
