import PermitCore

/// A notification the app posted for delivery now (a decision's `notify`), with what the
/// device did with it, judged from the authorization and settings it held at that moment
/// (docs/platform.md N-04).
public struct PostedNotification: Sendable, Hashable {
    /// How the device delivered it.
    public enum Delivery: String, Sendable, Hashable, CaseIterable {
        /// A banner (and the lock screen and Notification Center, as the settings allow).
        case banner
        /// Shown without a banner: to Notification Center or the lock screen only
        /// (provisional, a passive interruption level, or the alert setting off).
        case quiet
        /// Nothing shown: the app is not authorized, or every place to show it is off.
        case none
    }

    /// The notification as the app handed it over.
    public var notification: ScheduledReminder
    /// How it was delivered.
    public var delivery: Delivery
    /// Whether it played a sound: asked for, delivered, sound setting on, not passive.
    public var playedSound: Bool

    /// A posted notification and its fate.
    public init(notification: ScheduledReminder, delivery: Delivery, playedSound: Bool) {
        self.notification = notification
        self.delivery = delivery
        self.playedSound = playedSound
    }

    /// What iOS does with `notification` under `status` and `settings`. Not authorized (not
    /// determined, denied, an ended ephemeral grant), iOS adds nothing (docs/platform.md
    /// Q-03); provisional goes quietly to Notification Center (P-01); a passive level shows
    /// without lighting the screen or a sound; with the alert setting off there is no banner.
    public static func delivered(
        _ notification: ScheduledReminder, status: PermissionStatus, settings: NotificationSettings
    ) -> PostedNotification {
        guard status.isGranted else { return PostedNotification(notification: notification, delivery: .none, playedSound: false) }
        let listed = settings.notificationCenter == .enabled || settings.lockScreen == .enabled
        let delivery: Delivery
        if !notification.presentsAlert {
            delivery = .none
        } else if status == .provisional {
            delivery = .quiet
        } else if settings.alert == .enabled {
            delivery = notification.interruptionLevel == .passive ? .quiet : .banner
        } else {
            delivery = listed ? .quiet : .none
        }
        let sound =
            notification.sound && status != .provisional && settings.sound == .enabled
            && notification.interruptionLevel != .passive
        return PostedNotification(notification: notification, delivery: delivery, playedSound: sound)
    }
}
