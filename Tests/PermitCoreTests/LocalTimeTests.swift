import Foundation
import Testing

@testable import PermitCore

/// `ctx.local_time` is worked out from the local-day cache's offset, not a `Calendar`, so it is
/// checked against the `Calendar` over a year of uneven steps in zones whose offsets change in
/// awkward ways, and at the instants a policy author worries about: a day whose midnight does
/// not exist (Santiago) and an hour that happens twice (Berlin's fall-back).
@Suite struct LocalTimeTests {
    /// Date, hour, minute and ISO weekday (1 = Monday) of `seconds` by `Calendar`.
    static func calendarTime(_ seconds: Int64, in calendar: Calendar) -> (String, Int, Int, Int) {
        let parts = calendar.dateComponents(
            [.hour, .minute, .weekday], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        // Calendar's weekday is 1 = Sunday ... 7 = Saturday.
        let iso = (parts.weekday! + 5) % 7 + 1
        return (LocalDayCacheTests.calendarDay(seconds, in: calendar), parts.hour!, parts.minute!, iso)
    }

    @Test(arguments: ["America/Santiago", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Apia", "UTC"])
    func everyStepOfAYearMatchesTheCalendar(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var cache = LocalDayCache(timeZone: zone)
        var time: Int64 = 1_767_225_600  // 2026-01-01, then steps of 47 min 13 s through 2026
        // Mismatches gathered and asserted once: one expectation per step cost more than the
        // check itself.
        var wrong: [String] = []
        let calendar = LocalDayCacheTests.gregorian(zone)
        while time < 1_798_761_600 {
            let local = cache.localTime(of: time)
            let (date, hour, minute, weekday) = Self.calendarTime(time, in: calendar)
            let matches = local.date == date && local.hour == hour && local.minute == minute && local.weekday == weekday
            if !matches || local.timeZone != zoneName { wrong.append("\(time): \(local)") }
            time += 2_833
        }
        #expect(wrong.isEmpty, "\(zoneName): \(wrong.count) steps differ, first \(wrong.prefix(3))")
    }

    /// Chile springs forward at midnight: 2026-09-05 23:59:59 (-04) is followed by 2026-09-06
    /// 01:00 (-03), so the 6th has no 00:00 and starts at 01:00, a Sunday.
    @Test func santiagosMissingMidnight() throws {
        var cache = LocalDayCache(timeZone: try #require(TimeZone(identifier: "America/Santiago")))
        let change: Int64 = 1_788_667_200  // 2026-09-06 04:00 UTC
        let before = cache.localTime(of: change - 1)
        #expect((before.date, before.hour, before.minute, before.weekday) == ("2026-09-05", 23, 59, 6))
        let after = cache.localTime(of: change)
        #expect((after.date, after.hour, after.minute, after.weekday) == ("2026-09-06", 1, 0, 7))
    }

    /// Berlin falls back at 03:00 CEST to 02:00 CET on 2026-10-25: 02:30 happens twice, an
    /// hour apart, and both read as 02:30 of the same Sunday.
    @Test func berlinsRepeatedHour() throws {
        var cache = LocalDayCache(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        let first: Int64 = 1_792_888_200  // 2026-10-25 00:30 UTC, 02:30 CEST
        for time in [first, first + 3_600] {
            let local = cache.localTime(of: time)
            #expect((local.date, local.hour, local.minute, local.weekday) == ("2026-10-25", 2, 30, 7), "at \(time)")
        }
        let later = cache.localTime(of: first + 7_200)
        #expect((later.hour, later.minute) == (3, 30))
    }

    @Test func aContextWithoutAZoneIsInUTC() {
        let local = LocalTime(utcOf: 1_788_643_800)  // 2026-09-05 21:30 UTC, a Saturday
        #expect(local == LocalTime(date: "2026-09-05", hour: 21, minute: 30, weekday: 6, timeZone: "UTC"))
    }
}
