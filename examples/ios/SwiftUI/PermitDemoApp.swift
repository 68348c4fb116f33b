#if canImport(SwiftUI) && canImport(UIKit)
import PermitCore
import PermitLua
import SwiftUI
import UIKit

/// Owns the engine for the app's lifetime and turns its decisions into UI state.
@MainActor
final class PermissionCoordinator: ObservableObject {
    @Published var softPrompt: SoftPrompt?
    @Published var settingsPrompt: SettingsPrompt?
    @Published var status: PermissionStatus = .unknown

    private var engine: PermissionEngine?

    init() {
        let policyURL = Bundle.main.url(forResource: "policy", withExtension: "lua", subdirectory: "polite")!
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let version = (try? OSVersion(parsing: UIDevice.current.systemVersion)) ?? OSVersion(major: 16)
        let policy: any Policy
        do {
            policy = try LuaPolicy.load(contentsOf: policyURL, displayName: "polite/policy.lua")
        } catch {
            // A broken script must never break the app: fall back to asking nothing.
            print("Permit: policy failed to load: \(error)")
            policy = ClosurePolicy(name: "none") { _ in nil }
        }
        let client = UserNotificationCenterClient { [weak self] granted in
            Task { @MainActor in await self?.send(.systemPromptAnswered(granted: granted)) }
        }
        let engine = PermissionEngine(
            policy: policy, client: client, platform: Platform(version: version),
            // One engine per ledger file; should the file be locked, keep the session in memory.
            store: (try? JSONFileLedgerStore(url: support.appendingPathComponent("permit/ledger.json")))
                ?? InMemoryLedgerStore(),
            // What the policy keeps across a reinstall (`remember_durable`) lives in the Keychain.
            durableStore: KeychainDurableStore(service: (Bundle.main.bundleIdentifier ?? "app") + ".permit"),
            configuration: EngineConfiguration(locale: Locale.preferredLanguages.first ?? "en"))
        self.engine = engine
        Task { @MainActor in
            for await status in engine.statusStream { self.status = status }
        }
    }

    func send(_ event: AppEvent) async {
        guard let engine else { return }
        let outcome = await engine.handle(event)
        // A launch, or granted now: APNs wants the registration at every launch (the policy may say otherwise).
        if outcome.registerForRemoteNotifications { UIApplication.shared.registerForRemoteNotifications() }
        if outcome.unregisterForRemoteNotifications { UIApplication.shared.unregisterForRemoteNotifications() }
        switch outcome.finalDecision.action {  // after an instant answer, the policy's reaction to it
        case .softPrompt(let prompt): softPrompt = prompt
        case .settingsPrompt(let prompt): settingsPrompt = prompt
        case .openSettings(let link):  // the user tapped something that asked for Settings
            if let url = URL(string: UserNotificationCenterClient.settingsURLString(for: link)) { UIApplication.shared.open(url) }
        case .requestPermission, .none: break  // the engine already asked iOS when it could
        }
    }

    func answerSoftPrompt(_ answer: SoftPromptAnswer) {
        softPrompt = nil
        Task { await send(.softPromptAnswered(answer)) }
    }

    func answerSettingsPrompt(_ answer: SettingsPromptAnswer, link: DeepLink) {
        settingsPrompt = nil
        if answer == .open {
            // The iOS 16 property, the iOS 15.4 constant, or the app's Settings page before.
            if let url = URL(string: UserNotificationCenterClient.settingsURLString(for: link)) { UIApplication.shared.open(url) }
        }
        Task { await send(.settingsPromptAnswered(answer)) }
    }
}

@main
struct PermitDemoApp: App {
    @StateObject private var permissions = PermissionCoordinator()
    @Environment(\.scenePhase) private var scenePhase

    var body: some Scene {
        WindowGroup {
            RemindersView()
                .environmentObject(permissions)
                .task { await permissions.send(.appLaunch) }
        }
        .onChange(of: scenePhase) { phase in
            switch phase {
            case .active: Task { await permissions.send(.appForeground) }
            case .background: Task { await permissions.send(.appBackground) }
            default: break
            }
        }
    }
}

struct RemindersView: View {
    @EnvironmentObject var permissions: PermissionCoordinator

    var body: some View {
        Text("Reminders (notifications: \(permissions.status.rawValue))")
            .task { await permissions.send(.featureOpened("reminders")) }
            .alert(text(permissions.softPrompt?.title), isPresented: .constant(permissions.softPrompt != nil)) {
                Button(text(permissions.softPrompt?.accept)) { permissions.answerSoftPrompt(.accept) }
                Button(text(permissions.softPrompt?.decline), role: .cancel) { permissions.answerSoftPrompt(.decline) }
            } message: {
                Text(text(permissions.softPrompt?.message))
            }
            .alert(text(permissions.settingsPrompt?.title), isPresented: .constant(permissions.settingsPrompt != nil)) {
                let link = permissions.settingsPrompt?.deepLink ?? .appSettings
                Button(text(permissions.settingsPrompt?.open)) { permissions.answerSettingsPrompt(.open, link: link) }
                Button(text(permissions.settingsPrompt?.cancel), role: .cancel) { permissions.answerSettingsPrompt(.cancel, link: link) }
            } message: {
                Text(text(permissions.settingsPrompt?.message))
            }
    }

    /// Outcome texts are already localised by the engine.
    private func text(_ value: LocalizedText?) -> String { value?.description ?? "" }
}
#endif
