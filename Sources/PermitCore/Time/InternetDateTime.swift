import Foundation

/// Moments as ISO 8601 internet date-time text, `2026-01-05T08:00:00Z`: how scenario and model
/// files write `start` and how bundle manifests write their times.
///
/// One formatter for the process, used under a lock. Why: making an `ISO8601DateFormatter`
/// opens an ICU date format, which costs more than the parse itself, and every date a scenario,
/// a model or a manifest holds made a new one; Foundation does not promise that one formatter
/// may be used from two threads at once, so the lock keeps calls apart.
package enum InternetDateTime {
    /// Internet date-time with a zone, written in UTC.
    private static let formatter: Locked<ISO8601DateFormatter> = {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return Locked(formatter)
    }()

    /// The moment `text` names (a zone is required), or `nil` when it is not such a text.
    package static func date(from text: String) -> Date? {
        formatter.withLock { $0.date(from: text) }
    }

    /// `date` in UTC, to the second (`Z` for the zone).
    package static func string(from date: Date) -> String {
        formatter.withLock { $0.string(from: date) }
    }
}
