#if canImport(UIKit)
import PermitCore
import PermitLua
import UIKit

/// The UIKit integration: the app delegate owns the engine; lifecycle callbacks become events,
/// and decisions become alerts on the front view controller.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?
    private var engine: PermissionEngine!
    /// Hears the tap on the app's link in Settings › Notifications (iOS 12+, after a request
    /// with `provides_app_settings`); the notification center holds it weakly.
    private var settingsLink: NotificationSettingsLinkDelegate?

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let policyURL = Bundle.main.url(forResource: "policy", withExtension: "lua", subdirectory: "polite")!
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let policy: any Policy = (try? LuaPolicy.load(contentsOf: policyURL, displayName: "polite/policy.lua"))
            ?? ClosurePolicy(name: "none") { _ in nil }  // a broken script never breaks the app
        let client = UserNotificationCenterClient { [weak self] granted in
            Task { @MainActor in await self?.send(.systemPromptAnswered(granted: granted)) }
        }
        engine = PermissionEngine(
            policy: policy, client: client,
            platform: Platform(version: (try? OSVersion(parsing: UIDevice.current.systemVersion)) ?? OSVersion(major: 16)),
            // One engine per ledger file; should the file be locked, keep the session in memory.
            store: (try? JSONFileLedgerStore(url: support.appendingPathComponent("permit/ledger.json")))
                ?? InMemoryLedgerStore(),
            // What the policy keeps across a reinstall (`remember_durable`) lives in the Keychain.
            durableStore: KeychainDurableStore(service: (Bundle.main.bundleIdentifier ?? "app") + ".permit"),
            configuration: EngineConfiguration(locale: Locale.preferredLanguages.first ?? "en"))
        settingsLink = NotificationSettingsLinkDelegate { [weak self] in
            Task { @MainActor in await self?.send(.notificationSettingsOpened) }
        }
        settingsLink?.install()
        // A new time zone: local days, prompts_today and reminder planning follow it.
        NotificationCenter.default.addObserver(
            forName: UIApplication.significantTimeChangeNotification, object: nil, queue: .main
        ) { [weak self] _ in
            Task { @MainActor in await self?.send(.significantTimeChange(timeZone: .current)) }
        }
        Task { await send(.appLaunch) }
        return true
    }

    // There is no callback when the user changes the permission in Settings: the engine
    // re-reads the status on every foreground (and again shortly after).
    func applicationWillEnterForeground(_ application: UIApplication) { Task { await send(.appForeground) } }
    func applicationDidEnterBackground(_ application: UIApplication) { Task { await send(.appBackground) } }

    /// Call from a screen that needs notifications, e.g. in `viewDidAppear`.
    func featureOpened(_ name: String) { Task { await send(.featureOpened(name)) } }

    @MainActor
    func send(_ event: AppEvent) async {
        let outcome = await engine.handle(event)
        // A launch, or granted now: APNs wants the registration at every launch (the policy may say otherwise).
        if outcome.registerForRemoteNotifications { UIApplication.shared.registerForRemoteNotifications() }
        if outcome.unregisterForRemoteNotifications { UIApplication.shared.unregisterForRemoteNotifications() }
        switch outcome.finalDecision.action {  // after an instant answer, the policy's reaction to it
        case .softPrompt(let prompt):
            present(title: prompt.title, message: prompt.message, actions: [
                ((prompt.decline ?? .plain("Not now")).description, .cancel, { Task { await self.send(.softPromptAnswered(.decline)) } }),
                (prompt.accept.description, .default, { Task { await self.send(.softPromptAnswered(.accept)) } }),
            ])
        case .settingsPrompt(let prompt):
            let link = UserNotificationCenterClient.settingsURLString(for: prompt.deepLink)
            present(title: prompt.title, message: prompt.message, actions: [
                ((prompt.cancel ?? .plain("Cancel")).description, .cancel, { Task { await self.send(.settingsPromptAnswered(.cancel)) } }),
                (prompt.open.description, .default, {
                    if let url = URL(string: link) { UIApplication.shared.open(url) }
                    Task { await self.send(.settingsPromptAnswered(.open)) }
                }),
            ])
        case .openSettings(let deepLink):  // the user tapped something that asked for Settings
            if let url = URL(string: UserNotificationCenterClient.settingsURLString(for: deepLink)) { UIApplication.shared.open(url) }
        case .requestPermission, .none:
            break
        }
    }

    @MainActor
    private func present(title: LocalizedText, message: LocalizedText, actions: [(String, UIAlertAction.Style, () -> Void)]) {
        let alert = UIAlertController(title: title.description, message: message.description, preferredStyle: .alert)
        for (label, style, handler) in actions {
            alert.addAction(UIAlertAction(title: label, style: style) { _ in handler() })
        }
        var front = window?.rootViewController
        while let presented = front?.presentedViewController { front = presented }
        front?.present(alert, animated: true)
    }
}
#endif
