import Foundation
import Testing
@testable import PermitCore

@Suite struct ReminderPlannerTests {
    func plan(
        _ requests: [ReminderRequest], now: Date = start, zone: String = "UTC", pending: [ScheduledReminder] = [],
        alert: Bool = true, locale: String = "en"
    ) -> ReminderPlanner.Plan {
        ReminderPlanner.plan(
            requests, now: now, timeZone: TimeZone(identifier: zone)!, locale: locale, pending: pending, alertEnabled: alert)
    }

    func iso(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func fireDatesInTheDeviceTimeZoneAndPastOnesDropped() {
        // 08:00 UTC is 16:00 in Taipei: today's 9:00 and 14:00 have passed there, 20:00 has not.
        let requests = [9, 14, 20].map { ReminderRequest(day: 0, hour: $0, body: "mood") }
            + [ReminderRequest(day: 1, hour: 9, body: "mood")]
        let result = plan(requests, zone: "Asia/Taipei")
        #expect(result.toSchedule.map(\.fireDate) == [iso("2026-01-05T12:00:00Z"), iso("2026-01-06T01:00:00Z")])
        #expect(result.problems.isEmpty)
    }

    @Test func acrossADayBoundary() {
        // 23:30 local on the 5th: day 0 at 23:45 is today, day 1 at 00:15 is just after midnight.
        let now = iso("2026-01-05T23:30:00Z")
        let result = plan([
            ReminderRequest(day: 0, hour: 23, minute: 45, body: "a"),
            ReminderRequest(day: 1, hour: 0, minute: 15, body: "b"),
            ReminderRequest(day: 0, hour: 23, minute: 15, body: "past"),
        ], now: now)
        #expect(result.toSchedule.map(\.fireDate) == [iso("2026-01-05T23:45:00Z"), iso("2026-01-06T00:15:00Z")])
    }

    /// Fire dates are arithmetic until the zone's next offset change: every one must be the
    /// Calendar's, whatever the zone, the day and the time (DST gaps and repeats included).
    @Test(arguments: ["UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago",
                      "Asia/Kolkata", "Pacific/Chatham"])
    func fireDatesAreTheCalendars(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var now = iso("2026-01-01T00:00:00Z")
        while now < iso("2027-01-01T00:00:00Z") {
            let today = calendar.startOfDay(for: now)
            let steady = zone.nextDaylightSavingTimeTransition(after: today) ?? .distantFuture
            for (day, hour, minute) in [(0, 0, 0), (0, 2, 30), (1, 1, 30), (3, 2, 0), (6, 23, 59), (40, 9, 15)] {
                let request = ReminderRequest(day: day, hour: hour, minute: minute, body: "x")
                let expected = calendar.date(byAdding: .day, value: day, to: today).flatMap {
                    calendar.date(bySettingHour: hour, minute: minute, second: 0, of: $0)
                }
                let got = ReminderPlanner.fireDate(of: request, today: today, steadyUntil: steady, calendar: calendar)
                #expect(got == expected, "\(zoneName) \(now) day \(day) \(hour):\(minute)")
            }
            now = now.addingTimeInterval(86_400 * 3 + 3_601)
        }
    }

    @Test func dayZeroIsTheLocalDayNotTheUTCDay() {
        // 2026-01-05T20:00Z is already the 6th at 04:00 in Taipei.
        let result = plan([ReminderRequest(day: 0, hour: 9, body: "x")], now: iso("2026-01-05T20:00:00Z"), zone: "Asia/Taipei")
        #expect(result.toSchedule.map(\.fireDate) == [iso("2026-01-06T01:00:00Z")])
    }

    @Test func duplicatesAndAlreadyPendingAreDropped() {
        let pending = [ScheduledReminder(id: "old", fireDate: iso("2026-01-05T20:00:00Z"), body: "old")]
        let result = plan([
            ReminderRequest(hour: 20, body: "again"),
            ReminderRequest(hour: 21, body: "new"),
            ReminderRequest(hour: 21, body: "twice"),
        ], pending: pending)
        #expect(result.toSchedule.map(\.body) == ["new"])
    }

    @Test func keepsThe64SoonestCountingPending() {
        let requests = (0..<30).flatMap { day in [9, 14, 20].map { ReminderRequest(day: day, hour: $0, body: .plain("d\(day)h\($0)")) } }
        let all = plan(requests)
        #expect(all.toSchedule.count == 64)
        #expect(all.toSchedule.first?.body == "d0h9")
        #expect(all.toSchedule == all.toSchedule.sorted { $0.fireDate < $1.fireDate })
        // Ten pending reminders later than everything planned still leave room for 54 of them.
        let late = (0..<10).map { ScheduledReminder(id: "late\($0)", fireDate: start + Double(400 + $0) * day, body: "late") }
        #expect(plan(requests, pending: late).toSchedule.count == 64)
        // Ten pending reminders sooner than everything planned take ten places.
        let soon = (0..<10).map { ScheduledReminder(id: "soon\($0)", fireDate: start + Double($0 + 1) * 60, body: "soon") }
        #expect(plan(requests, pending: soon).toSchedule.count == 54)
    }

    @Test func badgeAndSoundOnlyWhenAlertsAreOff() {
        let request = ReminderRequest(hour: 20, title: "Mood", body: "How do you feel?", sound: true, badge: 1)
        let shown = plan([request]).toSchedule[0]
        #expect(shown.title == "Mood" && shown.body == "How do you feel?" && shown.presentsAlert)
        let quiet = plan([request], alert: false).toSchedule[0]
        #expect(quiet.title == nil && quiet.body == nil && !quiet.presentsAlert)
        #expect(quiet.sound && quiet.badge == 1)
    }

    @Test func textsAreLocalised() {
        let request = ReminderRequest(hour: 20, body: .translations(["en": "How are you?", "zh-Hans": "你好吗？"]))
        #expect(plan([request], locale: "zh-Hans-CN").toSchedule.first?.body == "你好吗？")
        #expect(plan([request], locale: "fr").toSchedule.first?.body == "How are you?")
        let noEnglish = ReminderRequest(hour: 20, body: .translations(["de": "Hallo"]))
        let result = plan([noEnglish], locale: "fr")
        #expect(result.toSchedule.isEmpty)
        #expect(result.problems.first?.description.contains("reminders[1]: body has no text") == true)
    }

    @Test func invalidTimesAreProblemsNotCrashes() {
        let result = plan([
            ReminderRequest(hour: 24, body: "x"), ReminderRequest(hour: 9, minute: 60, body: "x"),
            ReminderRequest(day: -1, hour: 9, body: "x"), ReminderRequest(day: 1, hour: 9, body: "ok"),
        ])
        #expect(result.problems.map(\.index) == [0, 1, 2])
        #expect(result.toSchedule.map(\.body) == ["ok"])
    }

    @Test func defaultIdentifiersFollowTheFireDate() {
        let result = plan([ReminderRequest(hour: 20, body: "x"), ReminderRequest(hour: 21, body: "y", id: "custom")])
        #expect(result.toSchedule.map(\.id) == ["permit.reminder.1767643200", "custom"])
    }
}

@Suite struct LocalizedTextTests {
    @Test func fallbackChain() {
        #expect(LocalizedText.fallbackChain(for: "zh-Hans-CN") == ["zh-Hans-CN", "zh-Hans", "zh", "en"])
        #expect(LocalizedText.fallbackChain(for: "pt_BR") == ["pt-BR", "pt", "en"])
        #expect(LocalizedText.fallbackChain(for: "en") == ["en"])
        #expect(LocalizedText.fallbackChain(for: "en-GB") == ["en-GB", "en"])
    }

    @Test func resolution() {
        let text = LocalizedText.translations(["en": "Hi", "zh": "嗨", "zh-Hans": "你好", "zh-Hant-TW": "妳好"])
        #expect(text.resolved(for: "zh-Hant-TW") == "妳好")
        #expect(text.resolved(for: "zh-Hans-SG") == "你好")
        #expect(text.resolved(for: "zh-Hant-HK") == "嗨")
        #expect(text.resolved(for: "ja") == "Hi")
        #expect(LocalizedText.translations(["ja": "x"]).resolved(for: "fr") == nil)
        #expect(LocalizedText.plain("Hi").resolved(for: "ja") == "Hi")
    }
}
