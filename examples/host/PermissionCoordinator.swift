// The iOS examples' model (examples/ios): the engine, the life cycle and what the screens show.
// It imports no UIKit or SwiftUI, so it is built here with the package and played on a
// simulated device by main.swift; the SwiftUI app and the UIKit scene delegate are thin shims
// over it. Add this file to the app target with one of them.
import Foundation
import Observation
import PermitCore
import PermitLua

/// Owns the engine for the app's lifetime and turns its decisions into state the UI observes
/// (Observation: SwiftUI redraws on it; UIKit reads `onPresent`).
@Observable @MainActor final class PermissionCoordinator {
    /// The soft pre-prompt on screen, until it is answered.
    private(set) var softPrompt: SoftPrompt?
    /// The "open Settings?" prompt on screen, until it is answered.
    private(set) var settingsPrompt: SettingsPrompt?
    /// The information page on screen (one button), until it is closed.
    private(set) var informPage: InformPage?
    /// The status, re-read on launch, on every foreground and after an answer.
    private(set) var status: PermissionStatus = .unknown

    /// What only the app's platform can do (UIApplication on iOS).
    struct PlatformActions {
        /// `UIApplication.shared.registerForRemoteNotifications()`: APNs wants it at every launch
        /// and right after a grant, unless the policy says otherwise.
        var registerForRemoteNotifications: @MainActor () -> Void
        /// `UIApplication.shared.unregisterForRemoteNotifications()`, when the policy asks for it
        /// (`remote_registration = "unregister"`, e.g. the app's own switch turned off).
        var unregisterForRemoteNotifications: @MainActor () -> Void = {}
        /// Opens the Settings page a settings prompt's deep link names
        /// (`UserNotificationCenterClient.settingsURLString(for:)` on iOS).
        var openSettings: @MainActor (DeepLink) -> Void
        /// Called after a decision to show something set `softPrompt`, `settingsPrompt` or `informPage`
        /// (UIKit presents an alert; SwiftUI observes the properties instead).
        var onPresent: @MainActor (PermissionCoordinator) -> Void = { _ in }
    }

    /// The engine, made off the main thread (`init`); every event waits for it.
    @ObservationIgnored private var engine: Task<PermissionEngine, Never>?
    @ObservationIgnored private var lifecycle = AppLifecycle()
    @ObservationIgnored private let actions: PlatformActions
    @ObservationIgnored private var statusTask: Task<Void, Never>?
    /// The last events sent: the next wait for them, so events reach the engine in order.
    @ObservationIgnored private var lastSend: Task<Void, Never>?
    /// Events sent before the launch (a screen's `onAppear` can run before the scene's first
    /// phase), held until `app_launch` has gone out.
    @ObservationIgnored private var held: [AppEvent] = []
    @ObservationIgnored private var launched = false

    /// - Parameters:
    ///   - policyURL: `polite/policy.lua` in the app bundle.
    ///   - ledgerURL: a file in Application Support.
    ///   - systemVersion: `UIDevice.current.systemVersion`.
    ///   - durableStore: what the policy keeps across a reinstall (`KeychainDurableStore` on iOS).
    init(
        policyURL: URL, ledgerURL: URL, systemVersion: String, locale: String, durableStore: (any DurableStore)?,
        actions: PlatformActions
    ) {
        self.actions = actions
        // The answer to the dialog arrives later; the client exists before the engine, so its
        // callback finds the coordinator through `self`, weakly.
        let answered: @Sendable (Bool) -> Void = { [weak self] granted in
            Task { @MainActor in _ = self?.send([.systemPromptAnswered(granted: granted)]) }
        }
        // Loading the policy compiles Lua, and making the engine reads the ledger file, takes its
        // lock and reads the Keychain: none of it on the main thread (docs/reference/host.md,
        // "Creating the engine"). Meanwhile the app draws its screens as usual and shows no
        // prompt; the status reads `unknown`, and the events sent wait for the engine, in order.
        let engine = Task.detached {
            PermissionCoordinator.makeEngine(
                policyURL: policyURL, ledgerURL: ledgerURL, systemVersion: systemVersion, locale: locale,
                durableStore: durableStore, answered: answered)
        }
        self.engine = engine
        statusTask = Task { [weak self] in
            for await status in await engine.value.statusStream { self?.status = status }
        }
    }

    /// The policy and the engine, off the main actor.
    nonisolated private static func makeEngine(
        policyURL: URL, ledgerURL: URL, systemVersion: String, locale: String, durableStore: (any DurableStore)?,
        answered: @escaping @Sendable (Bool) -> Void
    ) -> PermissionEngine {
        let policy: any Policy
        do {
            policy = try LuaPolicy.load(contentsOf: policyURL, displayName: "polite/policy.lua")
        } catch {
            // A broken script must never break the app: fall back to asking nothing.
            print("Permit: policy failed to load: \(error)")
            policy = ClosurePolicy(name: "none") { _ in nil }
        }
        return PermissionEngine(
            policy: policy, client: UserNotificationCenterClient(onAnswer: answered),
            platform: Platform(version: (try? OSVersion(parsing: systemVersion)) ?? OSVersion(major: 17)),
            // One engine per ledger file; should the file be locked, keep the session in memory.
            store: (try? JSONFileLedgerStore(url: ledgerURL)) ?? InMemoryLedgerStore(),
            durableStore: durableStore,
            configuration: EngineConfiguration(locale: locale))
    }

    // MARK: The life cycle: a cold start sends app_launch and app_foreground, once each.

    /// SwiftUI: the app's `scenePhase`, from `onChange(of: scenePhase, initial: true)`.
    @discardableResult func phaseChanged(to phase: AppLifecycle.Phase) -> Task<Void, Never> { send(lifecycle.phase(phase)) }

    /// UIKit: `sceneWillEnterForeground(_:)`.
    @discardableResult func sceneWillEnterForeground(_ scene: ObjectIdentifier) -> Task<Void, Never> {
        send(lifecycle.sceneWillEnterForeground(scene))
    }

    /// UIKit: `sceneDidEnterBackground(_:)` and `sceneDidDisconnect(_:)`.
    @discardableResult func sceneLeftForeground(_ scene: ObjectIdentifier) -> Task<Void, Never> {
        send(lifecycle.sceneLeftForeground(scene))
    }

    // MARK: What the screens call

    /// A screen that needs notifications appeared.
    @discardableResult func featureOpened(_ name: String) -> Task<Void, Never> { send([.featureOpened(name)]) }

    /// The user answered the soft pre-prompt.
    func answerSoftPrompt(_ answer: SoftPromptAnswer) {
        softPrompt = nil
        _ = send([.softPromptAnswered(answer)])
    }

    /// The user answered the settings prompt; `open` opens the page its deep link names.
    func answerSettingsPrompt(_ answer: SettingsPromptAnswer) {
        if answer == .open, let link = settingsPrompt?.deepLink { actions.openSettings(link) }
        settingsPrompt = nil
        _ = send([.settingsPromptAnswered(answer)])
    }

    /// The user closed the information page: its button (`ok`) or without it.
    func answerInform(_ answer: InformAnswer) {
        informPage = nil
        _ = send([.informAnswered(answer)])
    }

    /// The user tapped the app's link in Settings › Notifications (`NotificationSettingsLink`,
    /// called from the app's notification delegate).
    func notificationSettingsOpened() { _ = send([.notificationSettingsOpened]) }

    /// The app ran in the background (a `BGAppRefreshTask`'s handler, a silent push): the engine
    /// reads the settings again and plans reminders; it decides nothing to show. Await the task
    /// before completing the system's (`setTaskCompleted(success:)`). Sent at once, not held for
    /// `app_launch`: a process iOS started in the background sends that only when the user opens
    /// the app.
    @discardableResult func backgroundRefresh() -> Task<Void, Never> {
        let previous = lastSend
        let task = Task {
            await previous?.value
            await handle(.backgroundRefresh)
        }
        lastSend = task
        return task
    }

    /// The device changed time zone (`UIApplication.significantTimeChangeNotification`).
    func significantTimeChange() { _ = send([.significantTimeChange(timeZone: .current)]) }

    /// Sends the events after those sent before, `app_launch` first; the task ends when the
    /// last is handled.
    private func send(_ events: [AppEvent]) -> Task<Void, Never> {
        var events = events
        if events.first == .appLaunch {
            launched = true
            events += held
            held = []
        } else if !launched {
            held += events
            return Task {}
        }
        let previous = lastSend
        let task = Task {
            await previous?.value
            for event in events { await handle(event) }
        }
        lastSend = task
        return task
    }

    /// Sends one event and shows what the policy decided (localised already).
    private func handle(_ event: AppEvent) async {
        guard let outcome = await engine?.value.handle(event) else { return }
        if outcome.registerForRemoteNotifications { actions.registerForRemoteNotifications() }
        if outcome.unregisterForRemoteNotifications { actions.unregisterForRemoteNotifications() }
        switch outcome.finalDecision.action {  // after an instant answer, the policy's reaction to it
        case .softPrompt(let prompt):
            softPrompt = prompt
            actions.onPresent(self)
        case .settingsPrompt(let prompt):
            settingsPrompt = prompt
            actions.onPresent(self)
        case .openSettings(let deepLink): actions.openSettings(deepLink)  // a tap asked for Settings now
        case .inform(let page):
            informPage = page
            actions.onPresent(self)
        case .dismiss:  // the state the app's prompt spoke of changed: it goes
            softPrompt = nil
            settingsPrompt = nil
            informPage = nil
        case .requestPermission, .none: break  // the engine already asked iOS when it could
        }
    }
}
