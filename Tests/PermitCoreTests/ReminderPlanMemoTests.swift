import Foundation
import Testing

@testable import PermitCore

/// The engine's last reminder plan is taken again only while it is what planning would give:
/// seeded runs compare it with a fresh plan at every step (times landing on fire dates, wall
/// times and midnights, offset changes at midnight, the list, settings, zone and pending
/// notifications changing as a device's would), and each input on its own forces a new plan.
@Suite struct ReminderPlanMemoTests {
    static let version = OSVersion(major: 17, minor: 0)

    static func window(badge: Int?, id: Bool = false) -> [ReminderRequest] {
        (0..<3).flatMap { day in
            [9, 14, 20].map { hour in
                ReminderRequest(
                    day: day, hour: hour, title: .translations(["en": "Mood?", "de": "Laune?"]),
                    body: .translations(["en": "Track it", "de": "Notier sie"]), action: "track_mood", badge: badge,
                    id: id ? "d\(day)h\(hour)" : nil)
            }
        } + [ReminderRequest(day: 0, hour: 2, minute: 30, body: "night")]  // a DST gap or repeat in some zones
    }

    static func inputs(
        _ requests: [ReminderRequest], pending: [ScheduledReminder], zone: TimeZone, alert: Bool,
        overflow: PendingOverflow = .newest
    ) -> ReminderPlanMemo.Inputs {
        var settings = NotificationSettings.typical(for: .authorized, on: version)
        if !alert {
            settings.alert = .disabled
            settings.lockScreen = .disabled
            settings.notificationCenter = .disabled
        }
        return ReminderPlanMemo.Inputs(
            overflow: overflow, settings: settings, timeZone: zone, requests: requests, pending: pending)
    }

    static func fresh(_ inputs: ReminderPlanMemo.Inputs, now: Date) -> (plan: ReminderPlanner.Plan, until: Date) {
        ReminderPlanner.planned(
            inputs.requests, now: now, timeZone: inputs.timeZone, locale: "de-AT",
            chain: LocalizedText.fallbackChain(for: "de-AT"), pending: inputs.pending,
            contentShown: inputs.settings.showsContent, overflow: inputs.overflow,
            deliveredLevel: { InterruptionLevel.delivered($0, on: version, settings: inputs.settings) })
    }

    /// What a device does with a plan, and with the clock: fired notifications leave the list.
    static func apply(_ plan: ReminderPlanner.Plan, to pending: inout [ScheduledReminder], now: Date) {
        pending.removeAll { plan.toRemove.contains($0.id) }
        for reminder in plan.toSchedule {
            pending.removeAll { $0.id == reminder.id }
            pending.append(reminder)
        }
        pending.removeAll { $0.fireDate <= now }
        pending.sort { $0.fireDate < $1.fireDate }
    }

    @Test(arguments: ["Europe/Vienna", "America/Santiago", "Australia/Lord_Howe", "America/New_York", "Asia/Kolkata"])
    func theMemoIsAFreshPlanAtEveryStep(zoneName: String) throws {
        var zone = try #require(TimeZone(identifier: zoneName))
        var random = SplitMix64(seed: UInt64(zoneName.utf8.count))
        var memo = ReminderPlanMemo()
        var pending: [ScheduledReminder] = [ScheduledReminder(id: "app.own", fireDate: Date(timeIntervalSince1970: 1_775_000_000))]
        var requests = Self.window(badge: nil)
        var alert = true
        // Around the 2026 offset changes of the southern and northern zones (April and September).
        for start in [1_775_260_000.0, 1_788_200_000.0] {
            var now = Date(timeIntervalSince1970: start)
            var planned: (plan: ReminderPlanner.Plan, until: Date)?
            for step in 0..<400 {
                switch random.next() % 40 {
                case 0: requests = Self.window(badge: requests[0].badge == nil ? 1 : nil)
                case 1: requests = Self.window(badge: nil, id: requests[0].id == nil)
                case 2: alert.toggle()
                case 3: pending.append(ScheduledReminder(id: "app.\(step)", fireDate: now.addingTimeInterval(7_200)))
                case 4: zone = zone.identifier == zoneName ? TimeZone(identifier: "Asia/Tokyo")! : TimeZone(identifier: zoneName)!
                default: break
                }
                // Land on the moments that matter as well as between them.
                if let until = planned?.until, random.next() % 3 == 0, until > now {
                    now = until.addingTimeInterval([-1, 0, 0, 1][Int(random.next() % 4)])
                } else {
                    now = now.addingTimeInterval(Double(60 * (1 + random.next() % 240)))
                }
                let inputs = Self.inputs(requests, pending: pending, zone: zone, alert: alert)
                let expected = Self.fresh(inputs, now: now)
                let got = memo.plan(for: inputs, now: now, planning: { Self.fresh($0, now: now) })
                #expect(got == expected.plan, "\(zoneName) step \(step) at \(now)")
                planned = expected
                Self.apply(got, to: &pending, now: now)
            }
        }
        #expect(memo.hits > 100)
    }

    @Test func eachInputOnItsOwnMakesANewPlan() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Vienna"))
        let now = Date(timeIntervalSince1970: 1_775_300_000)  // 2026-04-04 12:53 in Vienna (UTC+2)
        let base = Self.inputs(Self.window(badge: nil), pending: [], zone: zone, alert: true)
        var pending: [ScheduledReminder] = []
        Self.apply(Self.fresh(base, now: now).plan, to: &pending, now: now)
        let settled = Self.inputs(Self.window(badge: nil), pending: pending, zone: zone, alert: true)
        let until = Self.fresh(settled, now: now).until
        #expect(until == Date(timeIntervalSince1970: 1_775_304_000))  // 14:00 in Vienna
        var changed: [(String, ReminderPlanMemo.Inputs, Date)] = []
        changed.append(("list", Self.inputs(Self.window(badge: 1), pending: pending, zone: zone, alert: true), now))
        changed.append(("settings", Self.inputs(Self.window(badge: nil), pending: pending, zone: zone, alert: false), now))
        changed.append(("pending", Self.inputs(Self.window(badge: nil), pending: Array(pending.dropLast()), zone: zone, alert: true), now))
        changed.append(
            ("zone", Self.inputs(Self.window(badge: nil), pending: pending, zone: TimeZone(identifier: "Europe/Berlin")!, alert: true), now)
        )
        changed.append(
            ("overflow", Self.inputs(Self.window(badge: nil), pending: pending, zone: zone, alert: true, overflow: .soonest), now))
        changed.append(("clock set back", settled, now.addingTimeInterval(-1)))
        changed.append(("a reminder's time reached", settled, until))
        for (what, inputs, when) in changed {
            var memo = ReminderPlanMemo()
            _ = memo.plan(for: settled, now: now, planning: { Self.fresh($0, now: now) })
            _ = memo.plan(for: settled, now: until.addingTimeInterval(-1), planning: { Self.fresh($0, now: until.addingTimeInterval(-1)) })
            #expect(memo.hits == 1, "\(what)")
            var planned = false
            _ = memo.plan(
                for: inputs, now: when,
                planning: { inputs in
                    planned = true
                    return Self.fresh(inputs, now: when)
                })
            #expect(planned, "\(what)")
            #expect(memo.hits == 1, "\(what)")
        }
    }
}
