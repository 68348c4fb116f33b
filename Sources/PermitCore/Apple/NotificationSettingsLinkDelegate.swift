#if canImport(UserNotifications) && canImport(UIKit)
import UserNotifications

/// An opt-in `UNUserNotificationCenterDelegate` that hears the app's notification-settings link
/// (`NotificationSettingsLink`) and forwards every call to the delegate the center had before:
/// foreground presentation and taps stay with the app or the SDK that set it. Prefer calling
/// `NotificationSettingsLink` from your own delegate; use this when you have none, or when your
/// SDK's delegate does not let you add the settings link.
///
/// The center holds its delegate weakly, and so does this wrapper the one it forwards to (its
/// owner keeps it alive, as before): keep the wrapper alive as long as the app runs. Install it
/// after every SDK that sets a delegate has set its own; one that sets its delegate later
/// replaces the wrapper, and the link then goes unheard.
///
/// A thin shim: with no delegate to forward to, it answers as the center does without one
/// (a notification in the foreground is not shown, a tap is acknowledged).
public final class NotificationSettingsLinkDelegate: NSObject, UNUserNotificationCenterDelegate {
    private let link: NotificationSettingsLink
    /// The delegate the center had when this one was installed; it is set once, in `init`.
    private weak var previous: (any UNUserNotificationCenterDelegate)?

    private init(link: NotificationSettingsLink, forwardingTo previous: (any UNUserNotificationCenterDelegate)?) {
        self.link = link
        self.previous = previous
    }

    /// Puts a wrapper in front of `center`'s current delegate and returns it; keep it alive.
    /// - Parameter onOpenSettings: called when the user taps the app's link in Settings.
    public static func install(
        on center: UNUserNotificationCenter = .current(), onOpenSettings: @escaping @Sendable () -> Void
    ) -> NotificationSettingsLinkDelegate {
        let wrapper = NotificationSettingsLinkDelegate(
            link: NotificationSettingsLink(onOpenSettings: onOpenSettings), forwardingTo: center.delegate)
        center.delegate = wrapper
        return wrapper
    }

    /// A notification arrived in the foreground: the previous delegate says how to show it.
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        // `nil`: no previous delegate, or one without this method.
        if previous?.userNotificationCenter?(center, willPresent: notification, withCompletionHandler: completionHandler) == nil {
            completionHandler([])
        }
    }

    /// The user acted on a notification: the previous delegate routes it.
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        if previous?.userNotificationCenter?(center, didReceive: response, withCompletionHandler: completionHandler) == nil {
            completionHandler()
        }
    }

    /// iOS 12+: the user opened the app from its notification-settings link; Permit hears it,
    /// then the previous delegate does.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
        link.userNotificationCenter(center, openSettingsFor: notification)
        previous?.userNotificationCenter?(center, openSettingsFor: notification)
    }
}
#endif
