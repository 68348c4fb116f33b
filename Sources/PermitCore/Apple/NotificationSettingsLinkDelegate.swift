#if canImport(UserNotifications) && canImport(UIKit)
import UIKit
import UserNotifications

/// The `UNUserNotificationCenterDelegate` that hears the user tap the link to the app's own
/// notification settings, which iOS 12+ shows in Settings › Notifications once the app asked
/// with `provides_app_settings` (docs/platform.md N-01). The host sends the engine
/// `.notificationSettingsOpened` from `onOpenSettings`, and shows its own settings screen when
/// the outcome says so.
///
/// A thin shim like `UserNotificationCenterClient`: the rule (when the link exists, what the
/// policy sees) is the simulated device's and the engine's, tested on every platform. An app
/// with a delegate of its own forwards `userNotificationCenter(_:openSettingsFor:)` to
/// `onOpenSettings` instead of installing this one.
public final class NotificationSettingsLinkDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
    private let onOpenSettings: @Sendable () -> Void

    /// - Parameter onOpenSettings: called when the user taps the app's link in Settings.
    public init(onOpenSettings: @escaping @Sendable () -> Void) {
        self.onOpenSettings = onOpenSettings
    }

    /// Makes this the notification center's delegate. The center holds its delegate weakly:
    /// keep this object alive as long as the app runs.
    public func install() {
        UNUserNotificationCenter.current().delegate = self
    }

    /// iOS 12+: the user opened the app from its notification-settings link.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
        onOpenSettings()
    }
}
#endif
