import Foundation

/// The wall-clock time of an event in the device's time zone (`ctx.local_time`).
///
/// Why a value of its own: "never after 22:00 local" and "the second calendar day of the
/// install" are rules about the user's clock, not about Unix seconds, and a policy cannot work
/// the zone's offset out itself (it has no time zone database, and the offset changes at DST).
/// The engine derives it from the same per-zone cache as the local day of `prompts_today`, so
/// both always agree and neither costs a calendar lookup per event.
public struct LocalTime: Sendable, Hashable {
    /// The local calendar day, `yyyy-MM-dd` (`"2026-09-06"`).
    public var date: String
    /// 0–23.
    public var hour: Int
    /// 0–59.
    public var minute: Int
    /// ISO 8601 day of the week: 1 is Monday, 7 is Sunday (the numbering `os.date("%u")` uses,
    /// so a weekend is `weekday >= 6`).
    public var weekday: Int
    /// The IANA id of the zone (`"Europe/Berlin"`).
    public var timeZone: String

    /// A local time as given (tests and hosts that know it).
    public init(date: String, hour: Int, minute: Int, weekday: Int, timeZone: String) {
        self.date = date
        self.hour = hour
        self.minute = minute
        self.weekday = weekday
        self.timeZone = timeZone
    }

    /// The local time of `now` (Unix seconds) in UTC: what a context built without a device
    /// zone sees.
    public init(utcOf now: Int64) {
        var cache = LocalDayCache(timeZone: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0)!)
        self = cache.localTime(of: now)
    }
}
