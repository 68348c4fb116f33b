import Foundation
import Testing

@testable import PermitCore

/// `prompts_today` is keyed by the local day; the cache computes it without a `Calendar`, so it
/// is checked against the `Calendar` wherever offsets change: at 02:00 (US, Europe), by half an
/// hour (Lord Howe), at midnight (Santiago, Havana: a day that starts at 01:00 or has two
/// 23:00s), across the date line (Apia skipped 2011-12-30), and far from 1970.
@Suite struct LocalDayCacheTests {
    static func calendarDay(_ seconds: Int64, in zone: TimeZone) -> String {
        calendarDay(seconds, in: gregorian(zone))
    }

    /// The walks build their calendar once: making one per step cost more than the check.
    static func calendarDay(_ seconds: Int64, in calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return "\(padded(parts.year!, 4))-\(padded(parts.month!, 2))-\(padded(parts.day!, 2))"
    }

    static func gregorian(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// `number` with leading zeros to `width` digits (the oracle's "%04d", without
    /// `String(format:)`, which is slow on Linux).
    static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    @Test(arguments: [
        "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "America/Havana",
        "Asia/Kolkata", "Pacific/Apia", "Pacific/Chatham", "UTC",
    ])
    func everyStepOfAYearMatchesTheCalendar(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var cache = LocalDayCache(timeZone: zone)
        // 2011-06-01 to 2012-06-01 in uneven steps of 47 minutes and 13 seconds (Apia's skipped
        // day is in it), then 2026 around its changes.
        var times: [Int64] = []
        var time: Int64 = 1_306_886_400
        while time < 1_338_508_800 { times.append(time); time += 2_833 }
        time = 1_767_225_600
        while time < 1_798_761_600 { times.append(time); time += 2_833 }
        // Mismatches gathered and asserted once: one expectation per step cost more than the
        // check itself.
        var wrong: [Int64] = []
        let calendar = Self.gregorian(zone)
        for time in times where cache.day(of: time) != Self.calendarDay(time, in: calendar) { wrong.append(time) }
        #expect(wrong.isEmpty, "\(zoneName): \(wrong.count) steps differ, first at \(wrong.prefix(5))")
    }

    @Test func aClockSetBackOrJumpingAsksAgain() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        var cache = LocalDayCache(timeZone: zone)
        for time: Int64 in [1_773_000_000, 1_772_999_999, 1_600_000_000, 1_773_000_000, 4_102_444_800, -86_401, 0] {
            #expect(cache.day(of: time) == Self.calendarDay(time, in: zone), "at \(time)")
        }
    }

    @Test func theCivilDateIsTheProlepticGregorianOne() {
        #expect(LocalDayCache.label(daysSince1970: 0) == "1970-01-01")
        #expect(LocalDayCache.label(daysSince1970: -1) == "1969-12-31")
        #expect(LocalDayCache.label(daysSince1970: 11_016) == "2000-02-29")
        #expect(LocalDayCache.label(daysSince1970: 11_017) == "2000-03-01")
        #expect(LocalDayCache.label(daysSince1970: 47_540) == "2100-02-28")
        #expect(LocalDayCache.label(daysSince1970: 47_541) == "2100-03-01")  // 2100 is not a leap year
        #expect(LocalDayCache.label(daysSince1970: -719_468) == "0000-03-01")
        #expect(LocalDayCache.label(daysSince1970: 2_932_896) == "9999-12-31")
        // Every 37th day from 1600 to 2470 against the Calendar in UTC (Foundation's calendar
        // turns Julian before 1582; no device clock is there).
        let utc = Self.gregorian(TimeZone(identifier: "UTC")!)
        let wrong = stride(from: Int64(-135_140), to: 182_621, by: 37).filter {
            LocalDayCache.label(daysSince1970: $0) != Self.calendarDay($0 * 86_400, in: utc)
        }
        #expect(wrong.isEmpty, "\(wrong.count) days differ, first at \(wrong.prefix(5)) days since 1970")
    }
}
