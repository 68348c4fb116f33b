#if canImport(UserNotifications) && canImport(UIKit)
import UserNotifications

/// Hears the user tap the link to the app's own notification settings, which iOS 12+ shows in
/// Settings › Notifications once the app asked with `provides_app_settings` (docs/platform.md
/// N-01), without taking the notification center's delegate: the app, or an SDK it links
/// (Firebase, Braze, OneSignal), owns that delegate and its foreground presentation and tap
/// routing. Call `userNotificationCenter(_:openSettingsFor:)` from that delegate's own
/// `userNotificationCenter(_:openSettingsFor:)`; the host then sends the engine
/// `.notificationSettingsOpened` from `onOpenSettings`.
///
/// An app that has no delegate of its own, or wants Permit to sit in front of the one it has,
/// can install `NotificationSettingsLinkDelegate` instead, which forwards every call.
public struct NotificationSettingsLink: Sendable {
    private let onOpenSettings: @Sendable () -> Void

    /// - Parameter onOpenSettings: called when the user taps the app's link in Settings.
    public init(onOpenSettings: @escaping @Sendable () -> Void) {
        self.onOpenSettings = onOpenSettings
    }

    /// Call from your delegate's `userNotificationCenter(_:openSettingsFor:)` (iOS 12+).
    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
        onOpenSettings()
    }
}
#endif
