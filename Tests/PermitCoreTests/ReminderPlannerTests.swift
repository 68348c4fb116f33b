import Foundation
import Testing

@testable import PermitCore

@Suite struct ReminderPlannerTests {
    func plan(
        _ requests: [ReminderRequest], now: Date = start, zone: String = "UTC", pending: [ScheduledReminder] = [],
        alert: Bool = true, locale: String = "en"
    ) -> ReminderPlanner.Plan {
        ReminderPlanner.plan(
            requests, now: now, timeZone: TimeZone(identifier: zone)!, locale: locale, pending: pending, contentShown: alert)
    }

    /// A `Date.ISO8601FormatStyle`, not a new `ISO8601DateFormatter` per call: making the
    /// formatter cost more than the planning these tests check.
    func iso(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func fireDatesInTheDeviceTimeZoneAndPastOnesDropped() {
        // 08:00 UTC is 16:00 in Taipei: today's 9:00 and 14:00 have passed there, 20:00 has not.
        let requests =
            [9, 14, 20].map { ReminderRequest(day: 0, hour: $0, body: "mood") }
            + [ReminderRequest(day: 1, hour: 9, body: "mood")]
        let result = plan(requests, zone: "Asia/Taipei")
        #expect(result.toSchedule.map(\.fireDate) == [iso("2026-01-05T12:00:00Z"), iso("2026-01-06T01:00:00Z")])
        #expect(result.problems.isEmpty)
    }

    @Test func acrossADayBoundary() {
        // 23:30 local on the 5th: day 0 at 23:45 is today, day 1 at 00:15 is just after midnight.
        let now = iso("2026-01-05T23:30:00Z")
        let result = plan(
            [
                ReminderRequest(day: 0, hour: 23, minute: 45, body: "a"),
                ReminderRequest(day: 1, hour: 0, minute: 15, body: "b"),
                ReminderRequest(day: 0, hour: 23, minute: 15, body: "past"),
            ], now: now)
        #expect(result.toSchedule.map(\.fireDate) == [iso("2026-01-05T23:45:00Z"), iso("2026-01-06T00:15:00Z")])
    }

    /// Fire dates are arithmetic while the zone's offset holds: every one must be the
    /// Calendar's, whatever the zone, the day and the time (DST gaps and repeats included).
    @Test(arguments: [
        "UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago",
        "Asia/Kolkata", "Pacific/Chatham",
    ])
    func fireDatesAreTheCalendars(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var now = iso("2026-01-01T00:00:00Z")
        while now < iso("2027-01-01T00:00:00Z") {
            for (day, hour, minute) in [(0, 0, 0), (0, 2, 30), (1, 1, 30), (3, 2, 0), (6, 23, 59), (40, 9, 15)] {
                expectCalendarsAnswer(now: now, zone: zone, day: day, hour: hour, minute: minute)
            }
            now = now.addingTimeInterval(86_400 * 3 + 3_601)
        }
    }

    /// The wall time "day N at HH:MM" as the Calendar alone computes it: today's date (taken at
    /// noon, which every day has), N days on, then that date at HH:MM.
    static func calendarsAnswer(now: Date, zone: TimeZone, day: Int, hour: Int, minute: Int) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var parts = calendar.dateComponents([.year, .month, .day], from: now)
        parts.hour = 12
        guard let noon = calendar.date(from: parts), let target = calendar.date(byAdding: .day, value: day, to: noon) else {
            return nil
        }
        var wanted = calendar.dateComponents([.year, .month, .day], from: target)
        wanted.hour = hour
        wanted.minute = minute
        return calendar.date(from: wanted)
    }

    func expectCalendarsAnswer(now: Date, zone: TimeZone, day: Int, hour: Int, minute: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let got = LocalWallClock(now: now, timeZone: zone).fireDate(day: day, hour: hour, minute: minute, calendar: calendar)
        let expected = Self.calendarsAnswer(now: now, zone: zone, day: day, hour: hour, minute: minute)
        #expect(got == expected, "\(zone.identifier) now \(now) day \(day) \(hour):\(minute)")
    }

    /// Every offset change in the tz database between 2024 and 2030 that happens at local
    /// midnight (the clock leaves or reaches 00:00), found from the zones themselves.
    static let midnightSwitches: [(zone: TimeZone, change: Date)] = {
        let start = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01T00:00Z
        let end = Date(timeIntervalSince1970: 1_924_992_000)  // 2031-01-01T00:00Z
        var found: [(zone: TimeZone, change: Date)] = []
        for identifier in TimeZone.knownTimeZoneIdentifiers {
            guard let zone = TimeZone(identifier: identifier) else { continue }
            var after = start
            while let change = zone.nextDaylightSavingTimeTransition(after: after), change < end {
                let instant = Int(change.timeIntervalSince1970.rounded())
                let before = zone.secondsFromGMT(for: change - 1)
                let later = zone.secondsFromGMT(for: change)
                if (instant + before) % 86_400 == 0 || (instant + later) % 86_400 == 0 {
                    found.append((zone, change))
                }
                after = change
            }
        }
        return found
    }()

    /// On a day whose midnight is skipped (or repeated), "day N at HH:MM" is
    /// HH:MM on the wall clock, not the day's first instant plus HH hours.
    @Test func everyMidnightSwitchFrom2024To2030MatchesTheCalendar() {
        let zones = Set(Self.midnightSwitches.map(\.zone.identifier))
        // The search must find the zones the issue names, or it found nothing to test.
        #expect(zones.isSuperset(of: ["America/Santiago", "America/Havana", "Asia/Beirut"]), "\(zones.sorted())")
        for (zone, change) in Self.midnightSwitches {
            for offset in [-20.0, -1, 1, 5, 20] {
                let now = change + offset * 3_600
                for day in 0...2 {
                    for (hour, minute) in [(0, 0), (0, 30), (1, 0), (9, 0), (14, 0), (20, 0), (23, 30)] {
                        expectCalendarsAnswer(now: now, zone: zone, day: day, hour: hour, minute: minute)
                    }
                }
            }
        }
    }

    @Test func santiagoOnTheDayWithoutMidnightPlansNineTwoAndEightLocal() {
        // 2026-09-06: Santiago's clocks jump from 00:00 to 01:00; 05:00Z is 02:00 local (UTC−3).
        let requests = (0...2).flatMap { day in [9, 14, 20].map { ReminderRequest(day: day, hour: $0, body: "mood") } }
        let result = plan(requests, now: iso("2026-09-06T05:00:00Z"), zone: "America/Santiago")
        let expected = ["06", "07", "08"].flatMap { day in
            ["12", "17", "23"].map { iso("2026-09-\(day)T\($0):00:00Z") }
        }
        #expect(result.toSchedule.map(\.fireDate) == expected)
    }

    @Test func dayZeroIsTheLocalDayNotTheUTCDay() {
        // 2026-01-05T20:00Z is already the 6th at 04:00 in Taipei.
        let result = plan([ReminderRequest(day: 0, hour: 9, body: "x")], now: iso("2026-01-05T20:00:00Z"), zone: "Asia/Taipei")
        #expect(result.toSchedule.map(\.fireDate) == [iso("2026-01-06T01:00:00Z")])
    }

    @Test func twoRemindersWithoutAnIdAtOneTimeAreOne() {
        let result = plan([
            ReminderRequest(hour: 21, body: "new"),
            ReminderRequest(hour: 21, body: "twice"),
        ])
        #expect(result.toSchedule.map(\.body) == ["new"])
    }

    /// The list is the whole set the policy wants (docs/reference/policy.md#plan-reminders): what is
    /// missing is added, what changed replaced, what is gone removed, the same left alone.
    @Test func theListIsReconciledWithThePoliciesPendingReminders() {
        let same = ScheduledReminder(id: "permit.same", fireDate: iso("2026-01-05T20:00:00Z"), body: "same")
        let changed = ScheduledReminder(id: "permit.changed", fireDate: iso("2026-01-05T21:00:00Z"), body: "quiet")
        let gone = ScheduledReminder(id: "permit.gone", fireDate: iso("2026-01-06T09:00:00Z"), body: "gone")
        let apps = ScheduledReminder(id: "app.own", fireDate: iso("2026-01-06T10:00:00Z"), body: "the app's")
        let result = plan(
            [
                ReminderRequest(hour: 20, body: "same", id: "same"),
                ReminderRequest(hour: 21, body: "now with words", id: "changed"),
                ReminderRequest(day: 1, hour: 8, body: "new", id: "new"),
            ], pending: [same, changed, gone, apps])
        #expect(result.toSchedule.map(\.id) == ["permit.changed", "permit.new"])
        #expect(result.toSchedule.first?.body == "now with words")
        #expect(result.toRemove == ["permit.gone"])  // the app's own notification stays
    }

    @Test func anEmptyListRemovesEveryPendingReminderOfThePolicy() {
        let pending = [
            ScheduledReminder(id: "permit.reminder.1767643200", fireDate: iso("2026-01-05T20:00:00Z"), body: "a"),
            ScheduledReminder(id: "permit.b", fireDate: iso("2026-01-05T21:00:00Z"), body: "b"),
            ScheduledReminder(id: "mine", fireDate: iso("2026-01-05T22:00:00Z"), body: "c"),
        ]
        let result = plan([], pending: pending)
        #expect(result.toSchedule.isEmpty)
        #expect(result.toRemove == ["permit.reminder.1767643200", "permit.b"])
    }

    @Test func theAppsOwnPendingNotificationsLeaveThePolicyTheRestOfSixtyFour() {
        let apps = (0..<60).map {
            ScheduledReminder(id: "app.\($0)", fireDate: start.addingTimeInterval(3_600 * Double($0 + 1)), body: "x")
        }
        let requests = (1...10).map { ReminderRequest(day: $0, hour: 9, body: .plain("day \($0)")) }
        #expect(plan(requests, pending: apps).toSchedule.count == 4)
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

    /// docs/platform.md Q-01: where iOS keeps the 64 added last, a reminder past 64 would evict
    /// the first added (usually the soonest), so new ones take only free places, soonest first.
    @Test func whereTheNewestAreKeptOnlyFreePlacesAreFilled() {
        let requests = (0..<30).flatMap { day in [9, 14, 20].map { ReminderRequest(day: day, hour: $0, body: .plain("d\(day)h\($0)")) } }
        let late = (0..<10).map { ScheduledReminder(id: "late\($0)", fireDate: start + Double(400 + $0) * day, body: "late") }
        func newest(_ pending: [ScheduledReminder]) -> [ScheduledReminder] {
            ReminderPlanner.plan(
                requests, now: start, timeZone: TimeZone(identifier: "UTC")!, locale: "en", pending: pending, contentShown: true,
                overflow: .newest
            ).toSchedule
        }
        #expect(newest([]).count == 64)
        let besideLate = newest(late)
        #expect(besideLate.count == 54, "ten places are taken, even by later reminders")
        #expect(besideLate.first?.body == "d0h9" && besideLate == besideLate.sorted { $0.fireDate < $1.fireDate })
        let full = (0..<64).map { ScheduledReminder(id: "p\($0)", fireDate: start + Double(500 + $0) * day, body: "p") }
        #expect(newest(full).isEmpty)
        let past = (0..<64).map { ScheduledReminder(id: "gone\($0)", fireDate: start - Double($0 + 1) * 60, body: "gone") }
        #expect(newest(past).count == 64, "delivered ones hold no place")
    }

    @Test func badgeAndSoundOnlyWhenAlertsAreOff() {
        let request = ReminderRequest(hour: 20, title: "Mood", body: "How do you feel?", sound: true, badge: 1)
        let shown = plan([request]).toSchedule[0]
        #expect(shown.title == "Mood" && shown.body == "How do you feel?" && shown.presentsAlert)
        let quiet = plan([request], alert: false).toSchedule[0]
        #expect(quiet.title == nil && quiet.body == nil && !quiet.presentsAlert)
        #expect(quiet.sound && quiet.badge == 1)
    }

    /// docs/platform.md P-01: provisional notifications arrive quietly in Notification Center
    /// with their content, so the engine keeps title and body when only Notification Center is on.
    @Test func contentIsShownWhereverTheNotificationIsSeen() {
        let provisional = NotificationSettings.typical(for: .provisional, on: OSVersion(major: 16))
        #expect(provisional.alert == .disabled && provisional.showsContent)
        let hidden = NotificationSettings(
            alert: .disabled, sound: .enabled, badge: .enabled,
            lockScreen: .disabled, notificationCenter: .disabled)
        #expect(!hidden.showsContent)
    }

    @Test func textsAreLocalised() {
        let request = ReminderRequest(hour: 20, body: .translations(["en": "How are you?", "zh-Hans": "你好吗？"]))
        #expect(plan([request], locale: "zh-Hans-CN").toSchedule.first?.body == "你好吗？")
        #expect(plan([request], locale: "fr").toSchedule.first?.body == "How are you?")
        let noEnglish = ReminderRequest(hour: 20, body: .translations(["de": "Hallo"]))
        let result = plan([noEnglish], locale: "fr")
        #expect(result.toSchedule.isEmpty)
        #expect(result.problems.first?.description.contains("reminders[1]: body has no text for fr or en") == true)
        // An English device names English once, not "en or en".
        let english = plan([noEnglish], locale: "en")
        #expect(english.problems.first?.description.hasSuffix("body has no text for en") == true, "\(english.problems)")
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
        #expect(result.toSchedule.map(\.id) == ["permit.reminder.1767643200", "permit.custom"])
    }
}

@Suite struct LocalizedTextTests {
    @Test func fallbackChain() {
        #expect(LocalizedText.fallbackChain(for: "zh-Hans-CN") == ["zh-Hans-CN", "zh-Hans", "zh", "en"])
        #expect(LocalizedText.fallbackChain(for: "pt_BR") == ["pt-BR", "pt", "en"])
        #expect(LocalizedText.fallbackChain(for: "en") == ["en"])
        #expect(LocalizedText.fallbackChain(for: "en-GB") == ["en-GB", "en"])
    }

    /// Chains are remembered per locale (and forgotten past a few dozen): asked again, or
    /// after many other locales, a locale gets the same chain.
    @Test func aRememberedChainIsTheSameChain() {
        let locales = (0..<150).map { "x\($0)_Latn_Q\($0)" }
        for locale in locales + locales.reversed() + ["zh-Hans-CN", "zh-Hans-CN"] + locales {
            let chain = LocalizedText.fallbackChain(for: locale)
            let normalized = locale.replacingOccurrences(of: "_", with: "-")
            let language = String(normalized.prefix { $0 != "-" })
            let expected =
                normalized == "zh-Hans-CN"
                ? ["zh-Hans-CN", "zh-Hans", "zh", "en"] : [normalized, language + "-Latn", language, "en"]
            #expect(chain == expected, "\(locale)")
        }
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

    /// A few translations are scanned, many are looked up: both give the chain's first text.
    @Test(arguments: [2, LocalizedText.scannedTranslations, LocalizedText.scannedTranslations + 1, 40])
    func resolutionFollowsTheChainWhateverTheNumberOfTranslations(count: Int) {
        var table = ["en": "Hi", "zh": "嗨", "zh-Hans": "你好", "pt-BR": "Oi"]
        for index in 0..<max(0, count - table.count) { table["x\(index)"] = "filler \(index)" }
        while table.count > count { table.removeValue(forKey: table.keys.filter { $0 != "en" && $0 != "zh" }.sorted().last!) }
        let text = LocalizedText.translations(table)
        #expect(text.resolved(for: "zh-Hans-SG") == table["zh-Hans"] ?? "嗨")
        #expect(text.resolved(for: "zh-Hant") == "嗨")
        #expect(text.resolved(for: "ja") == "Hi")
        #expect(text.resolved(for: "x3") == table["x3"] ?? "Hi")
        #expect(LocalizedText.translations(table.filter { $0.key != "en" }).resolved(for: "ja") == nil)
    }
}
