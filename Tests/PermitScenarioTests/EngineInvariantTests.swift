import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// Random event sequences through the engine and the simulated device, checking the
/// invariants users rely on after every step.
@Suite struct EngineInvariantTests {
    /// A policy that answers every event with a random decision (valid ones and ones the
    /// guardrails must stop), drawn from its own seeded generator.
    static func chaoticPolicy(seed: UInt64) -> ClosurePolicy {
        let rng = Locked(SplitMix64(seed: seed))
        return ClosurePolicy(
            name: "chaos",
            decide: { ctx throws(PolicyError) in
                let roll = rng.withLock { $0.int(0...9) }
                let link: DeepLink = rng.withLock { $0.chance(0.5) } ? .appSettings : .notificationSettings
                switch roll {
                case 0, 1: return nil
                case 2, 3: return Decision(.softPrompt(SoftPrompt(title: "t", message: "m", accept: "a", decline: "d")))
                case 4, 5:
                    let options: [AuthorizationOption] = rng.withLock { $0.chance(0.3) } ? [.alert, .provisional] : [.alert, .sound]
                    return Decision(.requestPermission(options: options))
                case 6: return Decision(.settingsPrompt(SettingsPrompt(title: "t", message: "m", open: "o", cancel: "c", deepLink: link)))
                case 7: return Decision(.none, remember: ["n": .integer(ctx.now)])
                case 8: throw PolicyError(kind: .runtime, message: "chaos")
                default:
                    return Decision(.softPrompt(SoftPrompt(title: .translations(["fr": "x"]), message: "m", accept: "a", decline: "d")))
                }
            },
            planReminders: { ctx in
                (0..<rng.withLock { $0.int(0...80) }).map { ReminderRequest(day: $0 / 3, hour: 8 + $0 % 3 * 5, body: "r") }
            })
    }

    struct Counters: Equatable {
        var values: [Int]
        init(_ l: Ledger) {
            values = [
                l.launches, l.foregrounds, l.softPrompt.shown, l.softPrompt.accepted, l.softPrompt.declined,
                l.softPrompt.dismissed, l.systemPrompt.requested, l.systemPrompt.shown, l.settingsPrompt.shown,
                l.settingsPrompt.opened, l.settingsPrompt.cancelled,
                l.features.values.reduce(0) { $0 + $1.opened },
            ]
        }
        func neverBelow(_ other: Counters) -> Bool { zip(values, other.values).allSatisfy { $0 >= $1 } }
    }

    @Test func invariantsHoldOverRandomSequences() async throws {
        let sequences = FuzzBudget.cases(150)
        let versions = ["8.4", "9.3", "10.3", "11.4", "12.0", "13.5", "14.2", "15.3", "15.4", "16.4", "17.2"]
        var steps = 0
        var violations: [String] = []
        for index in 0..<sequences {
            var rng = SplitMix64.stream(seed: FuzzBudget.seed, index: UInt64(index))
            let version = try OSVersion(parsing: rng.pick(versions))
            let platform = Platform(version: version, isAppClip: version >= OSVersion(major: 14) && rng.chance(0.2))
            let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
            let device = try SimulatedDevice(platform: platform, clock: clock)
            let cap = rng.int(1...4)
            let configuration = EngineConfiguration(
                maxPromptsPerDay: cap, timeZone: TimeZone(identifier: rng.pick(["UTC", "Asia/Taipei", "America/New_York"]))!,
                foregroundRechecks: [])
            let policy = Self.chaoticPolicy(seed: rng.next())
            var store = InMemoryLedgerStore()
            var engine = PermissionEngine(
                policy: policy, client: device, platform: platform, store: store, clock: clock, configuration: configuration)
            var previous = Counters(Ledger())
            var onScreen: String?
            for _ in 0..<40 {
                steps += 1
                clock.advance(by: TimeInterval(rng.pick([0, 30, 3600, 6 * 3600, 86400, 3 * 86400])))
                var outcome: Outcome?
                if device.isDialogOnScreen {
                    let granted = try device.answerDialog(allow: rng.chance(0.5))
                    outcome = await engine.handle(.systemPromptAnswered(granted: granted))
                } else if onScreen == "soft" {
                    outcome = await engine.handle(.softPromptAnswered(rng.pick(SoftPromptAnswer.allCases)))
                } else if onScreen == "settings" {
                    outcome = await engine.handle(.settingsPromptAnswered(rng.pick(SettingsPromptAnswer.allCases)))
                } else {
                    switch rng.int(0...9) {
                    case 0:
                        device.isInForeground = true
                        outcome = await engine.handle(.appLaunch)
                    case 1, 2:
                        device.isInForeground = true
                        outcome = await engine.handle(.appForeground)
                    case 3:
                        device.isInForeground = false
                        outcome = await engine.handle(.appBackground)
                    case 4:
                        if device.authorization != .notDetermined {
                            try device.changeInSettings(authorization: rng.chance(0.5) ? .authorized : .denied)
                        }
                    case 5 where rng.chance(0.3):
                        device.reinstall(systemRemembers: rng.chance(0.5))
                        store = InMemoryLedgerStore()
                        engine = PermissionEngine(
                            policy: policy, client: device, platform: platform, store: store, clock: clock, configuration: configuration)
                        previous = Counters(Ledger())
                    default:
                        outcome = await engine.handle(.featureOpened(rng.pick(["diary", "goals", "reminders"])))
                    }
                }
                onScreen = nil
                if let outcome {
                    switch outcome.decision.action {
                    case .softPrompt: onScreen = "soft"
                    case .settingsPrompt: onScreen = "settings"
                    default: break
                    }
                }
                let ledger = await engine.history
                // Broken invariants gathered and asserted once at the end: six expectations a
                // step cost more than the step.
                var broken: [String] = []
                let counters = Counters(ledger)
                if !counters.neverBelow(previous) { broken.append("counters went down") }
                previous = counters
                if ledger.promptsToday > cap { broken.append("prompts_today \(ledger.promptsToday) > cap \(cap)") }
                if device.dialogsShownThisInstall > 1 { broken.append("dialog shown twice") }
                if device.pending.count > 64 { broken.append("more than 64 pending") }
                if let outcome, outcome.event.rereadsStatus {
                    let truth = device.read().status(legacyRegistered: ledger.legacyRegistered)
                    let status = engine.status
                    if status != truth { broken.append("status \(status) but device says \(truth)") }
                }
                if ledger != store.ledger { broken.append("store out of date") }
                if !broken.isEmpty {
                    violations.append(
                        "sequence \(index) (seed \(FuzzBudget.seed)), iOS \(version), step \(steps): "
                            + broken.joined(separator: "; "))
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.count) steps broke an invariant: \(violations.prefix(5))")
        #expect(steps >= 6000)
    }
}
