import Foundation
import Testing

@testable import PermitCore

/// The ledger after each event and answer (docs/reference/policy.md#ctx-history).
@Suite struct EngineLedgerTests {
    @Test func launchesAndForegrounds() async {
        let world = World(policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        var history = await world.engine.history
        #expect(history.launches == 1 && history.foregrounds == 0)
        #expect(history.firstLaunchAt == 1_767_600_000)
        #expect(history.lastStatus == .notDetermined && history.statusChangedAt == 1_767_600_000)
        world.advance(hour)
        _ = await world.engine.handle(.appForeground)
        _ = await world.engine.handle(.appBackground)
        _ = await world.engine.handle(.appLaunch)
        history = await world.engine.history
        #expect(history.launches == 2 && history.foregrounds == 1)
        #expect(history.firstLaunchAt == 1_767_600_000)  // the first launch stays the first
        #expect(history.statusChangedAt == 1_767_600_000)  // no change, no new time
    }

    @Test func featuresAndSoftPromptAnswers() async {
        let world = World(
            policy: ClosurePolicy { ctx in
                ctx.event.feature != nil ? Decision(.softPrompt(softPrompt)) : nil
            })
        _ = await world.engine.handle(.featureOpened("diary"))
        world.advance(60)
        _ = await world.engine.handle(.softPromptAnswered(.decline))
        world.advance(60)
        _ = await world.engine.handle(.featureOpened("diary"))
        _ = await world.engine.handle(.softPromptAnswered(.dismiss))
        world.advance(60)
        _ = await world.engine.handle(.featureOpened("goals"))
        let history = await world.engine.history
        #expect(history.features["diary"]?.opened == 2)
        #expect(history.features["diary"]?.lastOpenedAt == 1_767_600_120)
        #expect(history.features["diary"]?.lastPromptAt == 1_767_600_120)
        #expect(history.features["goals"]?.opened == 1)
        #expect(history.softPrompt.shown == 3)
        #expect(history.softPrompt.declined == 1 && history.softPrompt.dismissed == 1 && history.softPrompt.accepted == 0)
        #expect(history.softPrompt.lastShownAt == 1_767_600_180)
        #expect(history.softPrompt.lastAnsweredAt == 1_767_600_120)
        #expect(history.promptsToday == 3)
    }

    @Test func systemPromptAnswerAndDeniedAt() async throws {
        let world = World(
            policy: ClosurePolicy { ctx in
                ctx.event.feature != nil ? Decision(.requestPermission(options: [.alert])) : nil
            })
        _ = await world.engine.handle(.featureOpened("x"))
        world.advance(30)
        _ = try await world.answerDialog(allow: false)
        var history = await world.engine.history
        #expect(history.systemPrompt.requested == 1 && history.systemPrompt.shown == 1)
        #expect(history.systemPrompt.answeredAt == 1_767_600_030 && history.systemPrompt.granted == false)
        #expect(history.deniedAt == 1_767_600_030 && history.lastStatus == .denied)
        #expect(!history.legacyRegistered)  // only iOS 8–9 keeps that flag
        // A second request shows no dialog: iOS answers it at once (docs/platform.md N-03). It
        // counts as requested, not shown, and warns of nothing.
        let again = await world.engine.handle(.featureOpened("x"))
        #expect(again.warnings.isEmpty && !again.dialogShown && again.immediateAnswer == false)
        history = await world.engine.history
        #expect(history.systemPrompt.requested == 2 && history.systemPrompt.shown == 1 && history.promptsToday == 1)
    }

    @Test func settingsPromptAnswers() async {
        let world = World(
            authorization: .denied,
            policy: ClosurePolicy { ctx in
                ctx.event.feature != nil ? Decision(.settingsPrompt(settingsPrompt)) : nil
            })
        for answer in [SettingsPromptAnswer.open, .cancel, .dismiss] {
            let shown = await world.engine.handle(.featureOpened("x"))
            #expect(shown.decision.action == .settingsPrompt(settingsPrompt))
            _ = await world.engine.handle(.settingsPromptAnswered(answer))
        }
        #expect(await world.engine.handle(.featureOpened("x")).warnings.map(\.name) == ["prompt-cap"])
        let history = await world.engine.history
        #expect(history.settingsPrompt.shown == 3)
        #expect(history.settingsPrompt.opened == 1 && history.settingsPrompt.cancelled == 1)
        #expect(history.settingsPrompt.lastShownAt == 1_767_600_000)
    }

    @Test func promptsTodayCountsTheLocalDayInTaipei() async {
        // 2026-01-05 08:00 UTC is 16:00 in Taipei; local midnight comes 8 hours later.
        let world = World(
            timeZone: "Asia/Taipei",
            policy: ClosurePolicy { ctx in
                ctx.event.feature != nil ? Decision(.softPrompt(softPrompt)) : nil
            })
        for _ in 0..<3 {
            #expect(await world.engine.handle(.featureOpened("x")).warnings.isEmpty)
            _ = await world.engine.handle(.softPromptAnswered(.decline))
        }
        let capped = await world.engine.handle(.featureOpened("x"))
        #expect(capped.decision == .none)
        #expect(capped.warnings.map(\.name) == ["prompt-cap"])
        world.advance(7 * hour + 59 * 60)  // 23:59 local: still the same day
        #expect(await world.engine.handle(.featureOpened("x")).warnings.map(\.name) == ["prompt-cap"])
        world.advance(60)  // 00:00 local, 16:00 UTC: a new local day
        let fresh = await world.engine.handle(.featureOpened("x"))
        #expect(fresh.warnings.isEmpty)
        #expect(await world.engine.history.promptsToday == 1)
        #expect(await world.engine.history.promptsDay == "2026-01-06")
    }

    @Test func aPartialStartingLedgerIsKept() async {
        var ledger = Ledger()
        ledger.launches = 4
        ledger.softPrompt.declined = 1
        let world = World(ledger: ledger, policy: always(.none))
        _ = await world.engine.handle(.appLaunch)
        let history = await world.engine.history
        #expect(history.launches == 5 && history.softPrompt.declined == 1)
    }

    @Test func remindersOnlyWhileGrantedAndOnlyOnTheirEvents() async throws {
        let planned = Locked(0)
        let policy = ClosurePolicy(
            decide: { _ in nil },
            planReminders: { _ in
                planned.withLock { $0 += 1 }
                return [ReminderRequest(day: 1, hour: 9, body: "b")]
            })
        let denied = World(authorization: .denied, policy: policy)
        #expect(await denied.engine.handle(.appLaunch).remindersScheduled.isEmpty)
        #expect(planned.current == 0)

        let granted = World(authorization: .authorized, policy: policy)
        #expect(await granted.engine.handle(.appLaunch).remindersScheduled.count == 1)
        #expect(await granted.engine.handle(.featureOpened("x")).remindersScheduled.isEmpty)
        #expect(planned.current == 1)
        // Already pending: planned again, scheduled nothing new.
        #expect(await granted.engine.handle(.appForeground).remindersScheduled.isEmpty)
        #expect(planned.current == 2)
        #expect(granted.device.pending.count == 1)
        // Alert, lock screen and Notification Center switched off in Settings: nothing would
        // show title and body, so badge and sound only.
        try granted.device.changeInSettings(settings: [.alert: .disabled, .lockScreen: .disabled, .notificationCenter: .disabled])
        granted.advance(2 * day)
        let quiet = await granted.engine.handle(.appForeground)
        #expect(quiet.remindersScheduled.count == 1)
        #expect(quiet.remindersScheduled.first?.presentsAlert == false)
    }
}

@Suite struct EngineConcurrencyTests {
    /// 1,000 events from 50 tasks at once: exact counts, nothing lost or doubled, and the
    /// policy never entered by two events together.
    @Test func concurrentEventsLeaveExactCounts() async throws {
        let inside = Locked(0)
        let overlaps = Locked(0)
        let calls = Locked(0)
        let policy = ClosurePolicy { ctx in
            if inside.withLock({
                $0 += 1; return $0
            }) > 1 {
                overlaps.withLock { $0 += 1 }
            }
            calls.withLock { $0 += 1 }
            inside.withLock { $0 -= 1 }
            return ctx.event == .appForeground ? Decision(.none, remember: ["last": .integer(ctx.now)]) : nil
        }
        let world = World(policy: policy)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<50 {
                group.addTask {
                    for index in 0..<20 {
                        let event: AppEvent = (task + index) % 2 == 0 ? .featureOpened("f\(task % 5)") : .appForeground
                        _ = await world.engine.handle(event)
                    }
                }
            }
        }
        let history = await world.engine.history
        let features = history.features.values.reduce(0) { $0 + $1.opened }
        #expect(features == 500)
        #expect(history.foregrounds == 500)
        #expect(history.features.count == 5)
        #expect(calls.current == 1000)
        #expect(overlaps.current == 0)
        #expect(world.store.ledger == history)
    }
}

/// Events of the app's own: the host's call, the ledger's count and cap.
@Suite struct AppEventLedgerTests {
    @Test func theLedgerCountsEachNameAndItsLastTime() async throws {
        let world = World(
            policy: ClosurePolicy { ctx in
                #expect(ctx.event.name == "lesson_completed")
                #expect(ctx.event.fields.first?.value == .table(["count": .integer(2)]))
                return nil
            })
        _ = await world.engine.handle(try .custom("lesson_completed", properties: ["count": 2]))
        world.advance(60)
        let outcome = await world.engine.handle(try .custom("lesson_completed", properties: ["count": 2]))
        #expect(outcome.errors.isEmpty)
        let history = await world.engine.history
        #expect(history.events["lesson_completed"]?.count == 2)
        #expect(history.events["lesson_completed"]?.lastAt == 1_767_600_060)
        #expect(history.launches == 0 && history.features.isEmpty)  // nothing else counts it
    }

    @Test func aNewNamePastTheCapIsRefusedAndTheLedgerKept() async throws {
        var ledger = Ledger()
        for index in 0..<Ledger.maxEventNames { ledger.events["event_\(index)"] = Ledger.EventHistory() }
        let asked = Locked(false)
        let world = World(
            ledger: ledger,
            policy: ClosurePolicy { _ in
                asked.withLock { $0 = true }
                return Decision(.softPrompt(softPrompt))
            })
        let refused = await world.engine.handle(try .custom("one_too_many"))
        #expect(!asked.withLock { $0 })
        #expect(refused.decision == .none)
        #expect(refused.error?.kind == .invalidEvent)
        #expect(refused.error?.message.contains("the most it keeps (64)") == true)
        var history = await world.engine.history
        #expect(history.events.count == Ledger.maxEventNames && history.events["one_too_many"] == nil)
        // A name already counted still counts.
        _ = await world.engine.handle(try .custom("event_3"))
        history = await world.engine.history
        #expect(history.events["event_3"]?.count == 1)
    }

    @Test(arguments: [
        ("app_launch", [String: PolicyValue](), "is a built-in event; send it as AppEvent.appLaunch"),
        ("Lesson Completed", [:], "is not an event name"),
        ("lesson_completed", ["Count": .integer(1)], "property \"Count\": not a property name"),
        ("lesson_completed", ["list": .list([.integer(1)])], "expected a string, number or boolean, got a"),
        ("lesson_completed", ["ratio": .number(.infinity)], "is not a finite number"),
        ("lesson_completed", ["title": .string(String(repeating: "x", count: 257))], "longer than the 256 allowed"),
        (
            "lesson_completed", Dictionary(uniqueKeysWithValues: (0..<17).map { ("p\($0)", PolicyValue.integer(1)) }),
            "17 properties, more than the 16 allowed"
        ),
    ])
    func aBadEventIsRefusedWhereTheHostMakesIt(name: String, properties: [String: PolicyValue], message: String) {
        do {
            _ = try AppEvent.custom(name, properties: properties)
            Issue.record("accepted \(name)")
        } catch {
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
