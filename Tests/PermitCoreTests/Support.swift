import Foundation
import PermitSimulator

@testable import PermitCore

/// 2026-01-05 08:00:00 UTC, a Monday.
let start = Date(timeIntervalSince1970: 1_767_600_000)

func version(_ text: String) -> OSVersion { try! OSVersion(parsing: text) }

func platform(_ text: String, appClip: Bool = false) -> Platform { Platform(version: version(text), isAppClip: appClip) }

/// An engine on a simulated device with a manual clock: the world of one test.
struct World {
    let clock: ManualClock
    let device: SimulatedDevice
    let store: InMemoryLedgerStore
    let engine: PermissionEngine

    init(
        os: String = "16.0", appClip: Bool = false, authorization: PermissionStatus? = nil,
        timeZone: String = "UTC", maxPromptsPerDay: Int = 3, locale: String = "en",
        ledger: Ledger = Ledger(), staleReads: Int = 0, rechecks: [Duration] = [],
        policy: any Policy, durableStore: (any DurableStore)? = nil
    ) {
        clock = ManualClock(start)
        let platform = platform(os, appClip: appClip)
        device = try! SimulatedDevice(
            platform: platform, clock: clock, authorization: authorization, staleReadsAfterChange: staleReads,
            ephemeralNotifications: appClip)
        store = InMemoryLedgerStore(ledger)
        engine = PermissionEngine(
            policy: policy, client: device, platform: platform, store: store, durableStore: durableStore, clock: clock,
            configuration: EngineConfiguration(
                maxPromptsPerDay: maxPromptsPerDay, locale: locale, timeZone: TimeZone(identifier: timeZone)!,
                foregroundRechecks: rechecks))
    }

    /// The user answers the system dialog and the app reports it, as a real app would.
    func answerDialog(allow: Bool) async throws -> Outcome {
        let granted = try device.answerDialog(allow: allow)
        return await engine.handle(.systemPromptAnswered(granted: granted))
    }

    func advance(_ seconds: TimeInterval) { clock.advance(by: seconds) }
}

/// A policy that always returns the same action.
func always(_ action: Decision.Action, reason: String? = nil) -> ClosurePolicy {
    ClosurePolicy(name: "always-\(action.name)") { _ in Decision(action, reason: reason) }
}

let softPrompt = SoftPrompt(
    title: "Stay in the loop", message: "We remind you of your plans.", accept: "Sure", decline: "Not now")

let settingsPrompt = SettingsPrompt(
    title: "Notifications are off", message: "Turn them on in Settings.", open: "Open Settings", cancel: "Later")

func settingsPrompt(_ link: DeepLink) -> SettingsPrompt {
    var prompt = settingsPrompt
    prompt.deepLink = link
    return prompt
}

let hour: TimeInterval = 3600
let day: TimeInterval = 86400
