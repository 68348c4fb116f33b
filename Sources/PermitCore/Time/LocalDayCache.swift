import Foundation

/// The local calendar day (`yyyy-MM-dd`) of a Unix time in one time zone, the key of
/// `prompts_today`, and the local wall-clock time of `ctx.local_time`.
///
/// Every event needs it, so it must cost next to nothing: the day is the UTC offset plus
/// integer arithmetic on days since 1970 (no `Calendar`, no `String(format:)`), and the answer
/// is kept with the span of seconds it holds for. That span ends at the next local midnight or
/// the zone's next offset change, whichever comes first, so within it the offset is constant
/// and the arithmetic exact. The offset itself is kept until the zone's next change, so the
/// time zone is asked again only then (or when the clock goes back): a new day is arithmetic.
///
/// What must stay true: every answer is `Calendar`'s for the same instant and zone. A kept
/// answer is used only for instants inside the span it was worked out for, and a span never
/// reaches past the zone's next offset change as `TimeZone.nextDaylightSavingTimeTransition`
/// reports it. `LocalDayCacheTests` compare with `Calendar` across a year in zones with
/// midnight DST changes, half-hour offsets and a skipped day, and with the clock set back.
struct LocalDayCache {
    let timeZone: TimeZone
    /// The zone's IANA id, read once (`TimeZone.identifier` builds a new string each time);
    /// `UTC` for UTC.
    let timeZoneIdentifier: String
    /// The day, its number since 1970, and the UTC offset it was worked out with, for `now`
    /// in `[start, end)`: within that span the offset is constant, so the local time of any
    /// second of it is arithmetic on the day number and the offset.
    private var cached: (start: Int64, end: Int64, day: String, dayNumber: Int64, offset: Int64)?
    /// The zone's UTC offset and the span it holds for, `[start, end)`: the zone is asked again
    /// only past its next offset change (never, for a zone without changes like UTC).
    private var offsetSpan: (start: Int64, end: Int64, offset: Int64)?

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
        // Foundation names UTC "GMT" (whatever it was made from); policies and scenarios say
        // "UTC", so that is the name they read back.
        self.timeZoneIdentifier = timeZone.identifier == "GMT" ? "UTC" : timeZone.identifier
    }

    /// The local date, hour, minute and ISO weekday of `now` (whole Unix seconds). Correct
    /// across DST: the offset is the one in force at `now`, so on a spring-forward day the
    /// skipped hour never appears and on a fall-back day the repeated hour appears twice.
    mutating func localTime(of now: Int64) -> LocalTime {
        let day = day(of: now)
        // `day(of:)` cached the span holding `now` unless `now` is the last second before an
        // offset change it could not cover (never for a valid clock): recompute the offset then.
        let (dayNumber, offset): (Int64, Int64)
        if let cached, now >= cached.start, now < cached.end {
            (dayNumber, offset) = (cached.dayNumber, cached.offset)
        } else {
            let span = self.offset(at: now)
            (dayNumber, offset) = (Self.floorDivide(now + span.offset, 86_400), span.offset)
        }
        let secondOfDay = now + offset - dayNumber * 86_400
        // 1970-01-01 was a Thursday (ISO 4): Monday of that week is day -3.
        let weekday = Int(Self.floorModulo(dayNumber + 3, 7)) + 1
        return LocalTime(
            date: day, hour: Int(secondOfDay / 3_600), minute: Int(secondOfDay % 3_600 / 60), weekday: weekday,
            timeZone: timeZoneIdentifier)
    }

    /// The local day of `now` (whole Unix seconds).
    mutating func day(of now: Int64) -> String {
        if let cached, now >= cached.start, now < cached.end { return cached.day }
        let span = offset(at: now)
        let dayNumber = Self.floorDivide(now + span.offset, 86_400)
        let day = Self.label(daysSince1970: dayNumber)
        // Valid from `now` (not from midnight: the offset may have been different earlier that
        // day; a clock set back simply asks again) to midnight or the next offset change.
        let end = min((dayNumber + 1) * 86_400 - span.offset, span.end)
        if now < end { cached = (now, end, day, dayNumber, span.offset) }
        return day
    }

    private mutating func offset(at now: Int64) -> (start: Int64, end: Int64, offset: Int64) {
        if let offsetSpan, now >= offsetSpan.start, now < offsetSpan.end { return offsetSpan }
        let date = Date(timeIntervalSince1970: TimeInterval(now))
        let offset = Int64(timeZone.secondsFromGMT(for: date))
        var end = Int64.max
        if let change = timeZone.nextDaylightSavingTimeTransition(after: date) {
            end = Int64(change.timeIntervalSince1970.rounded(.up))
        }
        let span = (start: now, end: max(end, now + 1), offset: offset)
        offsetSpan = span
        return span
    }

    /// `yyyy-MM-dd` of the proleptic Gregorian day `days` after 1970-01-01.
    ///
    /// Ten bytes fit a small string, which lives inline in the `String` value: written straight
    /// into one, the label takes no heap at all (through a byte array it took two allocations,
    /// a thousand instructions, once per simulated user-day).
    static func label(daysSince1970 days: Int64) -> String {
        let (year, month, day) = civilDate(daysSince1970: days)
        guard (0...9_999).contains(year) else {
            return String(format: "%04lld-%02lld-%02lld", year, month, day)
        }
        return String(unsafeUninitializedCapacity: 10) { bytes in
            writeDigits(year, endingAt: 3, count: 4, into: bytes)
            bytes[4] = UInt8(ascii: "-")
            writeDigits(month, endingAt: 6, count: 2, into: bytes)
            bytes[7] = UInt8(ascii: "-")
            writeDigits(day, endingAt: 9, count: 2, into: bytes)
            return 10
        }
    }

    /// Writes the last `count` decimal digits of `value` (not negative) so that the last lands
    /// at `end`. A plain loop: a nested function capturing the buffer, or a `stride`, cost the
    /// debug build (the test suite's) more than the whole label.
    private static func writeDigits(
        _ value: Int64, endingAt end: Int, count: Int, into bytes: UnsafeMutableBufferPointer<UInt8>
    ) {
        var value = value
        var index = end
        while index > end - count {
            bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            index -= 1
        }
    }

    /// Year, month and day of the day `days` after 1970-01-01 in the proleptic Gregorian
    /// calendar. Counts in 400-year eras (146,097 days each), with years starting on 1 March so
    /// that the leap day is the last day of a year.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01 to 1970-01-01
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097  // 0...146_096
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from 1 March
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0...11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        value - floorDivide(value, divisor) * divisor
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor < 0) ? quotient - 1 : quotient
    }
}
