import Foundation
import Testing

@testable import PermitCore

/// The planner's cheaper steps against the plain ones they replaced: identifiers written in one
/// allocation and the reconciliation comparing a few pending notifications one by one. Each
/// must answer exactly as before.
@Suite struct ReminderPlannerShortcutTests {
    @Test(arguments: [0, 9, 10, -1, -86_400, 1_767_600_000, 1_000_000_000_000, Int64.max, Int64.min])
    func anIdentifierWithoutAnIdIsTheInterpolatedOne(seconds: Int64) {
        #expect(ReminderPlanner.unnamedIdentifier(seconds: seconds) == "permit.reminder.\(seconds)")
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        if seconds.magnitude < 1 << 52 {
            #expect(ReminderPlanner.identifier(for: nil, fireDate: date) == "permit.reminder.\(seconds)")
        }
        #expect(ReminderPlanner.identifier(for: "a", fireDate: date) == "permit.a")
    }

    /// The reconciliation as it was first written: by dictionary and set, whatever the sizes.
    static func reference(
        _ wanted: [ScheduledReminder], with pending: [ScheduledReminder], now: Date, overflow: PendingOverflow
    ) -> (toSchedule: [ScheduledReminder], toRemove: [String]) {
        let live = pending.filter { $0.fireDate > now }
        let owned = live.filter { $0.id.hasPrefix(ReminderPlanner.ownedPrefix) }
        let foreign = live.filter { !$0.id.hasPrefix(ReminderPlanner.ownedPrefix) }
        let kept = ReminderPlanner.fitting(wanted, besides: foreign, overflow: overflow)
        let pendingById = Dictionary(owned.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let keptIds = Set(kept.map(\.id))
        return (kept.filter { pendingById[$0.id] != $0 }, owned.map(\.id).filter { !keptIds.contains($0) })
    }

    /// Seeded lists of every size the two ways meet: few and many pending notifications of the
    /// policy's and the app's, some past, some identical to a wanted one, some reworded, some
    /// with a repeated identifier.
    @Test(arguments: PendingOverflow.allCases)
    func theReconciliationIsTheDictionaryOnes(overflow: PendingOverflow) {
        let now = Date(timeIntervalSince1970: 1_767_600_000)
        var random = SplitMix64(seed: 7)
        func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        for round in 0..<300 {
            let size = [2, 9, 20, 70][round % 4]
            var wanted: [ScheduledReminder] = []
            for index in 0..<draw(size + 1) {
                wanted.append(
                    ScheduledReminder(
                        id: "permit.w\(index)", fireDate: now.addingTimeInterval(Double(60 * (1 + draw(5_000)))), body: "b"))
            }
            var pending: [ScheduledReminder] = []
            // Every fifth round, what is pending is what is wanted (the usual case, nothing to
            // do), soonest first or not, with some of the app's own.
            if round % 5 == 4 {
                pending = wanted.sorted { $0.fireDate < $1.fireDate }
                if draw(2) == 0 { pending.reverse() }
                if draw(2) == 0 { pending.append(ScheduledReminder(id: "app.x", fireDate: now.addingTimeInterval(600))) }
            }
            for _ in 0..<(round % 5 == 4 ? 0 : draw(size + 1)) {
                var reminder =
                    wanted.isEmpty || draw(3) == 0
                    ? ScheduledReminder(id: "permit.p\(draw(size + 1))", fireDate: now.addingTimeInterval(Double(60 * (draw(5_000) - 500))))
                    : wanted[draw(wanted.count)]
                if draw(4) == 0 { reminder = reminder.with(id: reminder.id, body: "reworded") }
                if draw(5) == 0 { reminder = reminder.with(id: "app.\(draw(size + 1))", body: reminder.body) }
                pending.append(reminder)
            }
            let plan = ReminderPlanner.reconcile(wanted, with: pending, now: now, overflow: overflow, problems: [])
            let expected = Self.reference(wanted, with: pending, now: now, overflow: overflow)
            #expect(plan.toSchedule == expected.toSchedule, "round \(round)")
            #expect(plan.toRemove == expected.toRemove, "round \(round)")
        }
    }

    /// Through the planner: reminders alternating two bodies get each their own text.
    @Test func remindersWithAlternatingTextsKeepEachTheirOwn() {
        let now = Date(timeIntervalSince1970: 1_767_600_000)
        let first = LocalizedText.translations(["en": "First", "fr": "Premier"])
        let second = LocalizedText.translations(["en": "Second", "fr": "Second (fr)"])
        let requests = (0..<6).map { index in
            ReminderRequest(
                day: 1, hour: 8 + index, minute: 0, title: index % 3 == 0 ? nil : second,
                body: index % 2 == 0 ? first : second)
        }
        let plan = ReminderPlanner.plan(
            requests, now: now, timeZone: TimeZone(identifier: "UTC")!, locale: "fr", pending: [], contentShown: true)
        #expect(plan.toSchedule.map(\.body) == ["Premier", "Second (fr)", "Premier", "Second (fr)", "Premier", "Second (fr)"])
        #expect(plan.toSchedule.map(\.title) == [nil, "Second (fr)", "Second (fr)", nil, "Second (fr)", "Second (fr)"])
    }
}

extension ScheduledReminder {
    /// The same reminder under another identifier or with another body.
    fileprivate func with(id: String, body: String?) -> ScheduledReminder {
        ScheduledReminder(
            id: id, fireDate: fireDate, title: title, body: body, action: action, sound: sound, badge: badge,
            interruptionLevel: interruptionLevel)
    }
}
