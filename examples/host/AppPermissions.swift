// What an app keeps for its whole session, as the README shows it (the region between the
// `snippet` markers is the README's "Using the library" block, checked by DocumentationTests).
// snippet: begin
import Foundation
import PermitCore
import PermitLua

/// The app's one permission engine, and what its screens call.
@MainActor final class AppPermissions {
    private(set) var engine: PermissionEngine?

    /// Call once at launch, from a `Task`: the app shows its screens meanwhile, without a prompt.
    init(policyURL: URL, ledgerURL: URL, systemVersion: String) async throws {
        // The answer to the system dialog arrives later, through the client. The client exists
        // before the engine, so its callback finds the engine through `self`, weakly.
        let answered: @Sendable (Bool) -> Void = { [weak self] granted in
            Task { @MainActor in await self?.handle(.systemPromptAnswered(granted: granted)) }
        }
        // Off the main thread: the policy compiles, the engine reads the ledger file and locks it.
        engine = try await Task.detached {
            PermissionEngine(
                policy: try LuaPolicy.load(contentsOf: policyURL, displayName: "polite/policy.lua"),
                client: UserNotificationCenterClient(onAnswer: answered),  // tests use PermitSimulator's `SimulatedDevice`
                platform: Platform(version: try OSVersion(parsing: systemVersion)),  // UIDevice's
                store: try JSONFileLedgerStore(url: ledgerURL),  // one engine per file: a second is refused
                configuration: EngineConfiguration(maxPromptsPerDay: 3, locale: "zh-Hans"))
        }.value
    }

    /// Sends one app event; shows what the policy decided (localised already).
    func handle(_ event: AppEvent) async {
        guard let outcome = await engine?.handle(event) else { return }
        if outcome.registerForRemoteNotifications {  // a launch, or granted now:
            registerForRemoteNotifications()  // APNs wants it at every launch
        }
        if outcome.unregisterForRemoteNotifications { unregisterForRemoteNotifications() }  // the policy's choice
        switch outcome.finalDecision.action {  // the event's decision, or the reaction
        case .softPrompt(let prompt): present(prompt)  // to an answer iOS gave at once
        case .settingsPrompt(let prompt): offerSettings(prompt.deepLink)
        case .openSettings(let deepLink): openSettings(deepLink)  // a tap asked for it
        case .inform(let page): inform(page)  // one button: it tells, it asks nothing
        case .dismiss: dismissPrompt()  // what the app shows is out of date
        case .requestPermission, .none: break  // the engine already asked iOS
        }
    }

    /// The status, re-read on every foreground: for a settings screen's switch.
    func watchStatus(_ update: @escaping @MainActor (PermissionStatus) -> Void) -> Task<Void, Never>? {
        guard let stream = engine?.statusStream else { return nil }
        return Task { @MainActor in
            for await status in stream { update(status) }
        }
    }
}
// snippet: end

#if canImport(UIKit)
import UIKit
#endif

/// The app's own views (its soft prompt, its Settings offer); here they print.
extension AppPermissions {
    /// On iOS: `UIApplication.shared.registerForRemoteNotifications()`, whose token the app
    /// sends to its push server.
    func registerForRemoteNotifications() {
        #if canImport(UIKit)
        UIApplication.shared.registerForRemoteNotifications()
        #else
        print("app registers for remote notifications")
        #endif
    }

    /// On iOS: `UIApplication.shared.unregisterForRemoteNotifications()`.
    func unregisterForRemoteNotifications() {
        #if canImport(UIKit)
        UIApplication.shared.unregisterForRemoteNotifications()
        #else
        print("app unregisters for remote notifications")
        #endif
    }

    func present(_ prompt: SoftPrompt) {
        print("app shows: \"\(prompt.title)\" [\(prompt.accept) | \(prompt.decline ?? .plain("-"))]")
    }
    func offerSettings(_ link: DeepLink) { print("app offers Settings → \(link.rawValue)") }
    func openSettings(_ link: DeepLink) { print("app opens Settings → \(link.rawValue)") }
    func inform(_ page: InformPage) { print("app shows the page: \"\(page.title)\" [\(page.button ?? .plain("-"))]") }
    func dismissPrompt() { print("app takes its prompt, row or page off screen") }
}
