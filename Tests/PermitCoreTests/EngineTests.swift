import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// A small "polite" policy in Swift: soft prompt on a feature, the dialog after an accept, a
/// settings prompt after a denial, reminders while granted.
let politePolicy = ClosurePolicy(
    name: "polite",
    decide: { ctx in
        switch (ctx.event, ctx.status) {
        case (.featureOpened, .notDetermined):
            return Decision(.softPrompt(softPrompt), reason: "feature needs notifications")
        case (.softPromptAnswered(.accept), _):
            return Decision(.requestPermission(options: [.alert, .sound, .badge]), reason: "accepted the soft prompt")
        case (.featureOpened, .denied):
            return Decision(.settingsPrompt(settingsPrompt(.notificationSettings)), reason: "denied earlier")
        default:
            return nil
        }
    },
    planReminders: { _ in
        [9, 14, 20].map { ReminderRequest(day: 1, hour: $0, title: "Mood", body: "How do you feel?") }
    })

@Suite struct EngineFlowTests {
    @Test func politeFlowOnIOS16() async throws {
        let world = World(os: "16.0", policy: politePolicy)
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.statusBefore == .unknown && launch.statusAfter == .notDetermined)
        #expect(launch.decision == .none && launch.errors.isEmpty)

        world.advance(300)
        let feature = await world.engine.handle(.featureOpened("reminders"))
        #expect(feature.decision.action == .softPrompt(softPrompt))
        #expect(feature.decision.reason == "feature needs notifications")

        let accept = await world.engine.handle(.softPromptAnswered(.accept))
        #expect(accept.decision.action == .requestPermission(options: [.alert, .sound, .badge]))
        #expect(accept.dialogShown)
        #expect(world.device.isDialogOnScreen)

        let answer = try await world.answerDialog(allow: true)
        #expect(answer.statusBefore == .notDetermined && answer.statusAfter == .authorized)
        #expect(answer.remindersScheduled.count == 3)
        #expect(world.device.pending.count == 3)

        let history = await world.engine.history
        #expect(history.launches == 1)
        #expect(history.softPrompt.shown == 1 && history.softPrompt.accepted == 1)
        #expect(history.systemPrompt.requested == 1 && history.systemPrompt.shown == 1)
        #expect(history.systemPrompt.granted == true)
        #expect(history.promptsToday == 2)
        #expect(history.features["reminders"]?.opened == 1)
        #expect(history.features["reminders"]?.lastPromptAt == 1_767_600_300)
        #expect(world.store.ledger == history)
    }

    /// The scenario example of docs/reference/scenarios.md#scenarios: iOS 9, denied, then enabled in Settings.
    @Test func iOS9DeniedThenEnabledInSettings() async throws {
        let world = World(os: "9.3", policy: politePolicy)
        #expect(await world.engine.handle(.appLaunch).statusAfter == .notDetermined)
        world.advance(300)
        #expect(await world.engine.handle(.featureOpened("reminders")).decision.action == .softPrompt(softPrompt))
        let accept = await world.engine.handle(.softPromptAnswered(.accept))
        #expect(accept.dialogShown)
        let deny = try await world.answerDialog(allow: false)
        #expect(deny.statusAfter == .denied)
        #expect(await world.engine.history.legacyRegistered)
        #expect(await world.engine.history.deniedAt == 1_767_600_300)

        world.advance(3 * day)
        let later = await world.engine.handle(.featureOpened("reminders"))
        // iOS 9 has no notification-settings link: the guardrail falls back to the app's page.
        #expect(later.decision.action == .settingsPrompt(settingsPrompt(.appSettings)))
        #expect(later.warnings.map(\.name) == ["deep-link-fallback"])

        _ = await world.engine.handle(.settingsPromptAnswered(.open))
        world.device.isInForeground = false
        _ = await world.engine.handle(.appBackground)
        try world.device.changeInSettings(authorization: .authorized)
        world.device.isInForeground = true
        let back = await world.engine.handle(.appForeground)
        #expect(back.statusBefore == .denied && back.statusAfter == .authorized)
        let history = await world.engine.history
        #expect(history.deniedAt == nil)
        #expect(history.settingsPrompt.shown == 1 && history.settingsPrompt.opened == 1)
        #expect(history.lastStatus == .authorized)
    }

    /// A reinstall wipes the iOS 9 flag while the system remembers the denial: the app first
    /// reads "not asked", asks, and the register callback fires at once with no types.
    @Test func iOS9ReinstallWithTheSystemRemembering() async throws {
        let world = World(
            os: "9.3", authorization: .denied,
            policy: ClosurePolicy { ctx in
                ctx.status == .notDetermined && ctx.event == .appLaunch
                    ? Decision(.requestPermission(options: [.alert, .badge])) : nil
            })
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.statusBefore == .unknown)
        #expect(launch.decision.action == .requestPermission(options: [.alert, .badge]))
        #expect(!launch.dialogShown)
        #expect(launch.immediateAnswer == false)
        #expect(launch.statusAfter == .denied)
        let history = await world.engine.history
        #expect(history.legacyRegistered)
        #expect(history.systemPrompt.requested == 1 && history.systemPrompt.shown == 0)
        #expect(history.promptsToday == 0)
    }

    /// The answer iOS gives at once reaches the policy as `system_prompt_answered`, and what it
    /// decides then is carried out in the same step.
    @Test func anInstantAnswerIsHeardByThePolicy() async throws {
        let heard = Locked<[AppEvent]>([])
        let world = World(
            os: "9.3", authorization: .denied,
            policy: ClosurePolicy { ctx in
                heard.withLock { $0.append(ctx.event) }
                switch ctx.event {
                case .softPromptAnswered(.accept): return Decision(.requestPermission(options: [.alert]))
                case .systemPromptAnswered(granted: false) where ctx.status == .denied:
                    return Decision(.settingsPrompt(settingsPrompt), reason: "denied before; offer Settings now")
                default: return nil
                }
            })
        _ = await world.engine.handle(.appLaunch)
        let accept = await world.engine.handle(.softPromptAnswered(.accept))
        #expect(accept.decision.action == .requestPermission(options: [.alert]))
        #expect(accept.immediateAnswer == false && !accept.dialogShown)
        #expect(accept.followUps.count == 1)
        let followUp = try #require(accept.followUps.first)
        #expect(followUp.event == .systemPromptAnswered(granted: false))
        #expect(followUp.statusBefore == .notDetermined && followUp.statusAfter == .denied)
        #expect(followUp.decision.action == .settingsPrompt(settingsPrompt))
        #expect(accept.finalDecision.action == .settingsPrompt(settingsPrompt))
        #expect(heard.current.map(\.name) == ["app_launch", "soft_prompt_answered", "system_prompt_answered"])
        let history = await world.engine.history
        #expect(history.settingsPrompt.shown == 1 && history.legacyRegistered)
        // A dialog that did show gets no follow-up: its answer comes as its own event later.
        let fresh = World(os: "16.0", policy: always(.requestPermission(options: [.alert])))
        let shown = await fresh.engine.handle(.featureOpened("x"))
        #expect(shown.dialogShown && shown.followUps.isEmpty)
    }

    @Test func provisionalAtLaunchIsSilentAndPlansReminders() async {
        let world = World(
            os: "13.0",
            policy: ClosurePolicy(
                decide: { ctx in
                    ctx.event == .appLaunch && ctx.status == .notDetermined && ctx.capabilities.provisional
                        ? Decision(.requestPermission(options: [.alert, .provisional])) : nil
                }, planReminders: { _ in [ReminderRequest(day: 1, hour: 9, title: "t", body: "b")] }))
        let launch = await world.engine.handle(.appLaunch)
        #expect(!launch.dialogShown)
        #expect(launch.immediateAnswer == true)
        #expect(launch.statusAfter == .provisional)
        #expect(launch.warnings.isEmpty)
        // Provisional delivers quietly to Notification Center, with the content (platform P-01).
        #expect(launch.remindersScheduled.count == 1)
        #expect(launch.remindersScheduled.first?.title == "t" && launch.remindersScheduled.first?.body == "b")
        #expect(await world.engine.history.promptsToday == 0)
    }

    @Test func appClipIsEphemeral() async {
        let world = World(os: "14.0", appClip: true, policy: always(.none))
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.statusAfter == .ephemeral)
    }

    @Test func requestOnBackgroundIsVoided() async {
        let world = World(
            os: "16.0",
            policy: ClosurePolicy { ctx in
                ctx.event == .appBackground ? Decision(.requestPermission(options: [.alert])) : nil
            })
        _ = await world.engine.handle(.appLaunch)
        let background = await world.engine.handle(.appBackground)
        #expect(background.decision.action == .none)
        #expect(background.proposed?.action == .requestPermission(options: [.alert]))
        #expect(background.warnings.map(\.name) == ["app-not-active"])
        #expect(await world.engine.history.systemPrompt.requested == 0)
        #expect(await !world.engine.isAppActive)
        #expect(await world.engine.handle(.appForeground).errors.isEmpty)
        #expect(await world.engine.isAppActive)
    }

    @Test func previousStatusShowsAChangeFoundByTheReRead() async throws {
        let seen = Locked<[(PermissionStatus, PermissionStatus)]>([])
        let world = World(
            os: "16.0", authorization: .denied,
            policy: ClosurePolicy { ctx in
                seen.withLock { $0.append((ctx.previousStatus, ctx.status)) }
                return nil
            })
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .authorized)
        _ = await world.engine.handle(.featureOpened("x"))  // no re-read: still denied
        _ = await world.engine.handle(.appForeground)
        let pairs = seen.current
        #expect(pairs.map(\.0) == [.unknown, .denied, .denied])
        #expect(pairs.map(\.1) == [.denied, .denied, .authorized])
    }

    /// A cold launch: the new process's engine loads the ledger the last one saved, so a grant
    /// turned off in Settings while the app was not running is seen as `authorized → denied`
    /// at the launch after it, as on a device; the status itself is `unknown` until read.
    @Test func previousStatusAtAColdLaunchIsWhatTheLedgerLastSaw() async throws {
        let seen = Locked<[(PermissionStatus, PermissionStatus)]>([])
        let policy = ClosurePolicy { ctx in
            seen.withLock { $0.append((ctx.previousStatus, ctx.status)) }
            return nil
        }
        let world = World(os: "16.0", authorization: .authorized, policy: policy)
        _ = await world.engine.handle(.appLaunch)
        #expect(world.store.ledger.lastStatus == .authorized)
        try world.device.changeInSettings(authorization: .denied)
        let relaunched = PermissionEngine(
            policy: policy, client: world.device, platform: world.device.platform, store: world.store,
            clock: world.clock, configuration: EngineConfiguration(foregroundRechecks: []))
        #expect(relaunched.status == .unknown)
        let launch = await relaunched.handle(.appLaunch)
        #expect(seen.current.map(\.0) == [.unknown, .authorized])
        #expect(seen.current.map(\.1) == [.authorized, .denied])
        #expect(launch.statusBefore == .authorized && launch.statusAfter == .denied)
        #expect(relaunched.status == .denied)
    }

    /// A process whose first event is not a launch still reads the status before deciding:
    /// the ledger's last status is only what came before.
    @Test func theFirstEventOfAProcessReadsTheStatusWhateverItIs() async throws {
        let world = World(os: "16.0", authorization: .authorized, policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        try world.device.changeInSettings(authorization: .denied)
        let relaunched = PermissionEngine(
            policy: always(.none), client: world.device, platform: world.device.platform, store: world.store,
            clock: world.clock, configuration: EngineConfiguration(foregroundRechecks: []))
        let opened = await relaunched.handle(.featureOpened("diary"))
        #expect(opened.statusBefore == .authorized && opened.statusAfter == .denied)
        #expect(relaunched.status == .denied)
    }
}

@Suite struct EngineContextTests {
    @Test func contextCarriesEverythingTheSpecPromises() async {
        let captured = Locked<PolicyContext?>(nil)
        let clock = ManualClock(start)
        let device = try! SimulatedDevice(platform: platform("15.4"), clock: clock)
        let engine = PermissionEngine(
            policy: ClosurePolicy { ctx in
                captured.withLock { $0 = ctx }; return nil
            },
            client: device, platform: platform("15.4"), clock: clock,
            configuration: EngineConfiguration(
                locale: "zh-Hans", timeZone: TimeZone(identifier: "Asia/Taipei")!, userBucket: 42,
                params: ["renag_after_days": .integer(3)], foregroundRechecks: []))
        _ = await engine.handle(.featureOpened("diary"))
        let ctx = try! #require(captured.current)
        #expect(ctx.event == .featureOpened("diary"))
        #expect(ctx.event.fields.map(\.name) == ["feature"])
        #expect(ctx.status == .notDetermined)  // read on first use even without a launch
        #expect(ctx.previousStatus == .unknown)
        #expect(ctx.platform.version == version("15.4"))
        #expect(ctx.capabilities.notificationSettingsLink)
        #expect(ctx.locale == "zh-Hans")
        #expect(ctx.userBucket == 42)
        #expect(ctx.params == ["renag_after_days": .integer(3)])
        #expect(ctx.now == 1_767_600_000)
        #expect(ctx.history.features["diary"]?.opened == 1)
        #expect(ctx.settings.alert == .notSupported, "every setting is not supported before the app has asked")
    }

    @Test func userBucketIsClamped() {
        #expect(EngineConfiguration(userBucket: 250).userBucket == 99)
        #expect(EngineConfiguration(userBucket: -4).userBucket == 0)
    }
}

@Suite struct EngineErrorTests {
    @Test func aPolicyErrorNeverEscapesAndTheNextEventIsServed() async {
        let calls = Locked(0)
        let world = World(
            policy: ClosurePolicy { _ throws(PolicyError) in
                let call = calls.withLock {
                    $0 += 1; return $0
                }
                if call == 1 { throw PolicyError(kind: .runtime, message: "boom", file: "policy.lua", line: 7) }
                return Decision(.softPrompt(softPrompt))
            })
        let first = await world.engine.handle(.featureOpened("x"))
        #expect(first.decision == .none)
        #expect(first.error?.description == "policy.lua:7: boom")
        let second = await world.engine.handle(.featureOpened("x"))
        #expect(second.errors.isEmpty)
        #expect(second.decision.action == .softPrompt(softPrompt))
    }

    @Test func textsAreLocalisedAndAMissingTranslationIsAnError() async {
        let translated = SoftPrompt(
            title: .translations(["en": "Stay in touch", "zh-Hans": "保持联系"]), message: "m", accept: "a", decline: "d")
        let zh = World(locale: "zh-Hans-CN", policy: always(.softPrompt(translated)))
        let shown = await zh.engine.handle(.featureOpened("x"))
        guard case .softPrompt(let prompt) = shown.decision.action else { Issue.record("no soft prompt"); return }
        #expect(prompt.title == .plain("保持联系"))
        #expect(shown.proposed?.action == .softPrompt(translated))

        let broken = SoftPrompt(title: .translations(["ja": "x"]), message: "m", accept: "a", decline: "d")
        let fr = World(locale: "fr", policy: always(.softPrompt(broken)))
        let failed = await fr.engine.handle(.featureOpened("x"))
        #expect(failed.decision == .none)
        #expect(failed.error?.kind == .missingTranslation)
        #expect(failed.error?.description.hasPrefix("decision.title: no text for fr, en") == true)
        #expect(await fr.engine.history.softPrompt.shown == 0)
    }

    @Test func rememberStoresDeletesAndIsCapped() async {
        let world = World(
            policy: ClosurePolicy { ctx -> Decision? in
                switch ctx.event.feature {
                case "set": Decision(.none, remember: ["variant": .string("b"), "n": .integer(1)])
                case "delete": Decision(.none, remember: ["n": nil])
                case "huge": Decision(.none, remember: ["blob": .string(String(repeating: "x", count: 5000))])
                case "table": Decision(.none, remember: ["t": .list([.integer(1)])])
                default: nil
                }
            })
        _ = await world.engine.handle(.featureOpened("set"))
        #expect(await world.engine.history.state == ["variant": .string("b"), "n": .integer(1)])
        _ = await world.engine.handle(.featureOpened("delete"))
        #expect(await world.engine.history.state == ["variant": .string("b")])
        let huge = await world.engine.handle(.featureOpened("huge"))
        #expect(huge.error?.kind == .stateTooLarge)
        #expect(huge.error?.description.contains("4096") == true)
        let table = await world.engine.handle(.featureOpened("table"))
        #expect(table.error?.description == "decision.remember.t: expected a string, number or boolean, got a table")
        #expect(await world.engine.history.state == ["variant": .string("b")])
    }

    @Test func aDecisionAGuardrailVoidedRemembersNothing() async {
        let world = World(
            policy: ClosurePolicy { ctx in
                switch ctx.event {
                case .featureOpened: Decision(.requestPermission(options: [.alert]), remember: ["asked_at": .integer(ctx.now)])
                case .appForeground: Decision(.none, remember: ["seen": .bool(true)])
                default: nil
                }
            })
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.appBackground)
        let voided = await world.engine.handle(.featureOpened("x"))
        #expect(voided.warnings.map(\.name) == ["app-not-active"])
        #expect(await world.engine.history.state.isEmpty)
        _ = await world.engine.handle(.appForeground)  // `none` itself is not voided
        #expect(await world.engine.history.state == ["seen": .bool(true)])
        let carried = await world.engine.handle(.featureOpened("x"))
        #expect(carried.dialogShown)
        #expect(await world.engine.history.state["asked_at"] == .integer(1_767_600_000))
    }

    @Test func aFailingStoreIsReportedAndNothingIsLost() async {
        final class FlakyStore: LedgerStore {
            let failing = Locked(true)
            let saved = Locked<Ledger?>(nil)
            func load() -> LedgerLoadResult { LedgerLoadResult(ledger: Ledger()) }
            func save(_ ledger: Ledger) throws(LedgerStoreError) {
                if failing.current { throw LedgerStoreError(location: "flaky", reason: "disk full") }
                saved.withLock { $0 = ledger }
            }
        }
        let store = FlakyStore()
        let clock = ManualClock(start)
        let device = try! SimulatedDevice(platform: platform("16"), clock: clock)
        let engine = PermissionEngine(
            policy: always(.none), client: device, platform: platform("16"), store: store, clock: clock,
            configuration: EngineConfiguration(foregroundRechecks: []))
        let first = await engine.handle(.appLaunch)
        #expect(first.storageError == "could not save the ledger to flaky: disk full")
        store.failing.withLock { $0 = false }
        let second = await engine.handle(.appForeground)
        #expect(second.storageError == nil)
        #expect(store.saved.current?.launches == 1)
        #expect(store.saved.current?.foregrounds == 1)
    }

    @Test func aNumberJSONCannotHoldIsRefusedAndTheFileStoreKeepsSaving() async throws {
        // One NaN in the state would make every later save of the JSON file fail: launches,
        // denied_at and the daily prompt cap would stop persisting.
        let clock = ManualClock(start)
        for bad in [Double.nan, .infinity, -.infinity] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-\(UUID().uuidString).json")
            defer {
                try? FileManager.default.removeItem(at: url)
                try? FileManager.default.removeItem(atPath: url.path + ".lock")
            }
            let store = try JSONFileLedgerStore(url: url)
            let engine = PermissionEngine(
                policy: ClosurePolicy { ctx in
                    ctx.event == .appLaunch ? Decision(.none, remember: ["bad": .some(.number(bad)), "good": .some(.integer(1))]) : nil
                },
                client: try SimulatedDevice(platform: platform("16"), clock: clock), platform: platform("16"), store: store,
                clock: clock, configuration: EngineConfiguration(foregroundRechecks: []))
            let outcome = await engine.handle(.appLaunch)
            #expect(outcome.error?.field == "decision.remember.bad")
            #expect(outcome.error?.message.contains("cannot be remembered") == true)
            #expect(outcome.storageError == nil)
            #expect(await engine.history.state["bad"] == nil)
            let later = await engine.handle(.appForeground)
            #expect(later.storageError == nil)
            #expect(store.load().ledger.foregrounds == (await engine.history).foregrounds)
        }
    }

    @Test func storeWarningsAreExposed() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-\(UUID().uuidString).json")
        try Data("garbage".utf8).write(to: url)
        let engine = PermissionEngine(
            policy: always(.none), client: try SimulatedDevice(platform: platform("16"), clock: SystemClock()),
            platform: platform("16"), store: try JSONFileLedgerStore(url: url))
        #expect(engine.storeWarnings.count == 1)
    }

    @Test func invalidReminderRequestsAreReportedNotScheduled() async {
        let world = World(
            authorization: .authorized,
            policy: ClosurePolicy(
                decide: { _ in nil },
                planReminders: { _ in
                    [ReminderRequest(day: 1, hour: 25, body: "bad"), ReminderRequest(day: 1, hour: 9, body: "good")]
                }))
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.remindersScheduled.map(\.body) == ["good"])
        #expect(launch.error?.description == "reminders: reminders[1]: time 25:0 is not a valid hour (0–23) and minute (0–59)")
    }
}
