import Foundation

/// The moments iOS sends `significant_time_change` without the zone changing: each local
/// midnight and each daylight-saving switch (docs/platform.md Z-03). A carrier's time update
/// is not modelled.
public enum SignificantTimeChanges {
    /// The moments in `(from, to]` at which the device in `zone` hears a significant time
    /// change, soonest first. A midnight that a daylight-saving switch skips or repeats is the
    /// switch itself, so it counts once. Cost grows with the days spanned, not the seconds.
    public static func between(_ from: Date, _ to: Date, in zone: TimeZone) -> [Date] {
        guard to > from else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var moments: [Date] = []
        // The start of each local day after `from`: `startOfDay` gives the first moment of the
        // day (01:00 where a switch skips midnight), so it is the switch's moment too.
        var day = calendar.startOfDay(for: from)
        while let next = calendar.date(byAdding: .day, value: 1, to: day).map(calendar.startOfDay(for:)), next <= to {
            if next > from { moments.append(next) }
            day = next
        }
        var after = from
        while let switchAt = zone.nextDaylightSavingTimeTransition(after: after), switchAt <= to {
            moments.append(switchAt)
            after = switchAt
        }
        return Array(Set(moments)).sorted()
    }
}
