import Foundation
import PermitCore
import Testing

/// The moments iOS sends `significant_time_change` without a zone change: each local midnight
/// and each daylight-saving switch (docs/platform.md Z-03).
@Suite struct SignificantTimeChangesTests {
    private func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func eachLocalMidnightInTheSpan() {
        let taipei = TimeZone(identifier: "Asia/Taipei")!
        // 23:50 on Jan 5 to 00:10 on Jan 8, Taipei time (UTC+8): three midnights.
        let moments = SignificantTimeChanges.between(date("2026-01-05T15:50:00Z"), date("2026-01-07T16:10:00Z"), in: taipei)
        #expect(moments == [date("2026-01-05T16:00:00Z"), date("2026-01-06T16:00:00Z"), date("2026-01-07T16:00:00Z")])
        // The span is open at its start and closed at its end.
        #expect(
            SignificantTimeChanges.between(date("2026-01-05T16:00:00Z"), date("2026-01-06T16:00:00Z"), in: taipei)
                == [date("2026-01-06T16:00:00Z")])
        #expect(SignificantTimeChanges.between(date("2026-01-05T16:00:00Z"), date("2026-01-05T16:00:00Z"), in: taipei).isEmpty)
    }

    @Test func aDaylightSavingSwitchAwayFromMidnight() {
        let newYork = TimeZone(identifier: "America/New_York")!
        // 01:30 EST to 03:30 EDT on 2026-03-08: the switch at 02:00 EST (07:00 UTC), no midnight.
        #expect(
            SignificantTimeChanges.between(date("2026-03-08T06:30:00Z"), date("2026-03-08T07:30:00Z"), in: newYork)
                == [date("2026-03-08T07:00:00Z")])
    }

    @Test func aMidnightTheSwitchSkipsCountsOnce() {
        let santiago = TimeZone(identifier: "America/Santiago")!
        // 2026-09-06 starts at 01:00 (-03): 00:00 (-04) never comes. The day's start and the
        // switch are one moment, 04:00 UTC.
        let moments = SignificantTimeChanges.between(date("2026-09-05T12:00:00Z"), date("2026-09-06T12:00:00Z"), in: santiago)
        #expect(moments == [date("2026-09-06T04:00:00Z")])
    }
}
