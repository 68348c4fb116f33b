#if canImport(UIKit)
import PermitCore
import UIKit

/// What only iOS provides to `PermissionCoordinator` (examples/host/PermissionCoordinator.swift,
/// built and played with the package): the app bundle's pack, Application Support, the
/// Keychain, UIApplication. Shared by the SwiftUI app and the UIKit scene delegate.
extension PermissionCoordinator {
    /// The coordinator of this app; `onPresent` draws a prompt (UIKit), SwiftUI observes instead.
    static func forThisApp(onPresent: @escaping @MainActor (PermissionCoordinator) -> Void = { _ in }) -> PermissionCoordinator {
        let policyURL = Bundle.main.url(forResource: "policy", withExtension: "lua", subdirectory: "polite")!
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let coordinator = PermissionCoordinator(
            policyURL: policyURL,
            ledgerURL: support.appendingPathComponent("permit/ledger.json"),
            systemVersion: UIDevice.current.systemVersion,
            locale: Locale.preferredLanguages.first ?? "en",
            // What the policy keeps across a reinstall (`remember_durable`) lives in the Keychain.
            durableStore: KeychainDurableStore(service: (Bundle.main.bundleIdentifier ?? "app") + ".permit"),
            actions: .init(
                registerForRemoteNotifications: { UIApplication.shared.registerForRemoteNotifications() },
                unregisterForRemoteNotifications: { UIApplication.shared.unregisterForRemoteNotifications() },
                openSettings: { link in
                    // The iOS 16 property, the iOS 15.4 constant, or the app's Settings page before.
                    if let url = URL(string: UserNotificationCenterClient.settingsURLString(for: link)) {
                        UIApplication.shared.open(url)
                    }
                },
                onPresent: onPresent))
        // The tap on the app's link in Settings › Notifications (iOS 12+, after a request with
        // `provides_app_settings`) reaches the notification center's delegate, which is the app's
        // (or its push SDK's): Permit sets none. That delegate's
        // `userNotificationCenter(_:openSettingsFor:)` calls
        // `SystemHooks.settingsLink.userNotificationCenter(center, openSettingsFor: notification)`.
        SystemHooks.settingsLink = NotificationSettingsLink { [weak coordinator] in
            Task { @MainActor in coordinator?.notificationSettingsOpened() }
        }
        // A new time zone: local days, prompts_today and reminder planning follow it.
        SystemHooks.timeChange = NotificationCenter.default.addObserver(
            forName: UIApplication.significantTimeChangeNotification, object: nil, queue: .main
        ) { [weak coordinator] _ in
            Task { @MainActor in coordinator?.significantTimeChange() }
        }
        return coordinator
    }
}

/// Keeps the system's callbacks alive for the app's lifetime.
@MainActor enum SystemHooks {
    /// What the app's notification delegate calls from `userNotificationCenter(_:openSettingsFor:)`.
    static var settingsLink: NotificationSettingsLink?
    static var timeChange: (any NSObjectProtocol)?
}
#endif
