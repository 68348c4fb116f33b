import Foundation

/// Turns "day N at HH:MM" into an instant the way a person reads it: HH:MM on the wall clock of
/// the N-th local calendar day after today.
///
/// A day does not always start at 00:00. Where a zone's daylight-saving switch is at midnight
/// (America/Santiago, America/Havana, Africa/Cairo, Asia/Beirut, ...), the day of the switch
/// starts at 01:00, so "start of day plus nine hours" is 10:00. The day is therefore counted in
/// wall-clock seconds (the calendar date of `now` plus N days), never from the day's first
/// instant.
///
/// Cheap on the hot path: while the zone's offset stays what it is at `now` (until its next
/// change, and only when no change happened in the hours before `now`, so that a repeated hour
/// cannot hide an earlier occurrence), the instant is the wall time minus that offset, plain
/// arithmetic. Anything else (past the change, before `now`, in a skipped or repeated hour) is
/// the `Calendar`'s answer for the same date components, the ones `UNCalendarNotificationTrigger`
/// receives on a device.
struct LocalWallClock {
    /// Longest a zone's offset change moves the clock (Antarctica/Troll: 2 h), plus a margin:
    /// a change less than this before `now` may make a wall time occur twice.
    static let repeatWindow: TimeInterval = 3 * 3_600

    let now: Date
    let timeZone: TimeZone
    /// Days since 1970-01-01 of `now`'s local calendar date.
    let today: Int64
    /// The zone's offset from UTC at `now`, in seconds.
    let offset: Int64
    /// The arithmetic holds for instants in `[now, steadyUntil)`; `now` itself when it cannot be used.
    let steadyUntil: Date

    init(now: Date, timeZone: TimeZone) {
        self.now = now
        self.timeZone = timeZone
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        offset = Int64(timeZone.secondsFromGMT(for: now))
        today = Self.floorDivide(seconds + offset, 86_400)
        // One question to the zone: its first change after a moment a few hours ago. If that
        // change is already past, `now` sits just after a switch: no arithmetic at all.
        let change = timeZone.nextDaylightSavingTimeTransition(after: now - Self.repeatWindow) ?? .distantFuture
        steadyUntil = change <= now ? now : change
    }

    /// The instant of `hour:minute` local on the `day`-th calendar day after today, or `nil` when
    /// the Calendar has none. `calendar` is asked for only when the arithmetic cannot answer.
    func fireDate(day: Int, hour: Int, minute: Int, calendar: @autoclosure () -> Calendar) -> Date? {
        let plain = plainDate(day: day, hour: hour, minute: minute)
        if plain >= now, plain < steadyUntil { return plain }
        return calendar().date(from: components(day: day, hour: hour, minute: minute))
    }

    /// The wall time minus today's offset: `fireDate`'s answer while the offset holds. Where it
    /// is not before `now`, it is also a moment at which `fireDate`'s choice can change.
    func plainDate(day: Int, hour: Int, minute: Int) -> Date {
        let wall = (today + Int64(day)) * 86_400 + Int64(hour * 3_600 + minute * 60)
        return Date(timeIntervalSince1970: TimeInterval(wall - offset))
    }

    /// Until when every answer of this clock stays the same for a clock made later: the next
    /// local midnight and the zone's next offset change (`now` itself when `now` follows a
    /// change closely, where nothing is steady). Fire dates and `plainDate`s at or after `now`
    /// bound it further; `ReminderPlanMemo` takes those into account.
    var sameDayUntil: Date {
        let midnight = Date(timeIntervalSince1970: TimeInterval((today + 1) * 86_400 - offset))
        return min(midnight, steadyUntil)
    }

    /// The calendar date and wall time of `hour:minute` on the `day`-th day after today, in the
    /// zone: what a calendar trigger matches.
    func components(day: Int, hour: Int, minute: Int) -> DateComponents {
        let (year, month, dayOfMonth) = LocalDayCache.civilDate(daysSince1970: today + Int64(day))
        return DateComponents(
            timeZone: timeZone, year: Int(year), month: Int(month), day: Int(dayOfMonth), hour: hour, minute: minute, second: 0)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor < 0) ? quotient - 1 : quotient
    }
}
