import Foundation

/// Which pending local notifications iOS keeps when an app has more than 64
/// (docs/platform.md Q-01).
///
/// Sources disagree. Apple's `UILocalNotification` documentation says the system keeps "the
/// soonest-firing 64"; reproductions with `UNUserNotificationCenter` on iOS 11 and later
/// (an Open Radar from 2018, a flutter_local_notifications report from 2024) find it keeps the
/// 64 added last, whatever their fire dates, and the same radar saw the soonest kept on iOS 10.
/// The default follows that evidence per version; a scenario can pick the other to test a
/// policy against both.
public enum PendingOverflow: String, Sendable, Hashable, CaseIterable {
    /// The 64 that fire first are kept.
    case soonest
    /// The 64 added most recently are kept; a replacement (same identifier) counts as added now.
    case newest

    /// What the evidence supports on `version`: `soonest` before iOS 11, `newest` from it.
    public static func observed(on version: OSVersion) -> PendingOverflow {
        version >= OSVersion(major: 11) ? .newest : .soonest
    }

    /// The notifications kept of `pending`, given in the order they were added, at most
    /// `limit`; the result stays in that order.
    public func kept(_ pending: [ScheduledReminder], limit: Int) -> [ScheduledReminder] {
        guard pending.count > limit else { return pending }
        switch self {
        case .newest:
            return Array(pending.suffix(limit))
        case .soonest:
            // A stable sort by fire date: of two at the same time, the one added first stays.
            let order = pending.indices.sorted { (pending[$0].fireDate, $0) < (pending[$1].fireDate, $1) }
            let keep = Set(order.prefix(limit))
            return pending.indices.filter(keep.contains).map { pending[$0] }
        }
    }
}
