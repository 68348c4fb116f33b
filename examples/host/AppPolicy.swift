// An app whose policy can be replaced by a signed bundle, as docs/bundles.md ("In the app")
// shows it: the region between the `snippet` markers is that page's block, checked by
// DocumentationTests. Built with the example so the page's code cannot stop compiling unnoticed.
// snippet: begin
import Foundation
import PermitCore
import PermitDelivery
import PermitLua

/// The app's engine on a policy that bundles can replace; the built-in pack is the floor.
@MainActor final class AppPolicy {
    let source: PolicySource
    private(set) var engine: PermissionEngine?

    /// - Parameters:
    ///   - builtInURL: the pack's policy.lua in the app bundle
    ///     (`Bundle.main.url(forResource: "policy", withExtension: "lua", subdirectory: "polite")`).
    ///   - releaseKey: the text of release.pub, `permit-ed25519-public 8041f109cb17882d <base64>`.
    ///   - systemVersion: `UIDevice.current.systemVersion`.
    init(builtInURL: URL, releaseKey: String, ledgerURL: URL, systemVersion: String, params: [String: PolicyValue]) async throws {
        // Off the main thread, all of it: compiling the built-in policy, restoring the saved bundle,
        // and making the engine (it reads the ledger file and locks it).
        let builtIn = try await Task.detached { try LuaPolicy.load(contentsOf: builtInURL, displayName: "polite/policy.lua") }.value
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        let configuration = PolicySource.Configuration(
            pack: "polite",  // bundles of other packs are refused
            trust: .keys([try BundlePublicKey(text: releaseKey)]),  // unsigned or stripped bundles are refused
            directory: support.appendingPathComponent("permit-policy"),  // the last good bundle
            hostParams: params,  // the same params given to the engine
            onEvent: { event in print("permit policy: \(event)") },  // your logger
            minimumVersion: 6,  // optional: never run a version below 6
            antiRollbackVault: KeychainAntiRollbackVault(service: "com.example.app", pack: "polite"))
        let source = await PolicySource.open(builtIn: builtIn, configuration: configuration)
        self.source = source
        // The answer to the system dialog arrives later, through the client, which exists before
        // the engine: its callback finds the engine through `self`, weakly.
        let answered: @Sendable (Bool) -> Void = { [weak self] granted in
            Task { @MainActor in _ = await self?.engine?.handle(.systemPromptAnswered(granted: granted)) }
        }
        engine = try await Task.detached {
            PermissionEngine(
                policy: source,  // instead of the LuaPolicy (README, "Using the library")
                client: UserNotificationCenterClient(onAnswer: answered),
                platform: Platform(version: try OSVersion(parsing: systemVersion)),
                store: try JSONFileLedgerStore(url: ledgerURL),
                configuration: EngineConfiguration(params: params))
        }.value
    }

    /// Whenever a bundle arrives. `BundleFetcher` (PermitFetch, "Fetching bundles" below)
    /// downloads it politely and calls this for you; any other way of getting the bytes works
    /// the same.
    func install(_ downloaded: Data) async {
        do {
            // Checked, compiled and probed on a background queue: the main thread never waits
            // for it, and events go on, on the policy serving, until the swap between two events.
            let manifest = try await source.installInBackground(downloaded)
            print("policy \(manifest.pack) \(manifest.version) installed")
        } catch {
            print("policy bundle refused: \(error)")  // the policy serving keeps serving
        }
    }

    /// What serves now, what it falls back to, and everything that happened: serving,
    /// fallback, highestVersion, revokedVersions, recent errors, events.
    var policyStatus: DeliveryStatus { source.status }
}
// snippet: end
