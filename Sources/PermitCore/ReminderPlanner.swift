import Foundation

/// Turns a policy's reminder requests into notifications to schedule (docs/reference.md#plan-reminders).
///
/// A pure function of its inputs, so every rule is tested without a device: fire dates in the
/// device's time zone, past ones dropped, ones already pending dropped, the system's 64 cap
/// applied to pending and new together (iOS keeps the soonest), badge and sound only when the
/// alert setting is disabled.
public enum ReminderPlanner {
    /// iOS keeps at most this many pending local notifications.
    public static let systemPendingLimit = 64

    /// A request the planner had to leave out, and why.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The request's position in the policy's list, from 0.
        public let index: Int
        /// Why it was left out.
        public let message: String
        /// `reminders[N]: why`, numbered from 1 as Lua authors count.
        public var description: String { "reminders[\(index + 1)]: \(message)" }
    }

    /// What to schedule and what was left out.
    public struct Plan: Sendable, Hashable {
        /// New notifications to schedule, soonest first.
        public var toSchedule: [ScheduledReminder]
        /// Requests that were invalid (bad hour, text missing for the locale, ...).
        public var problems: [Problem]
    }

    /// Plans `requests` for `now` in `timeZone` against what is already pending.
    ///
    /// `contentShown` says whether a delivered notification is seen anywhere (an alert, the lock
    /// screen or Notification Center); when it is not, title and body are left out and only
    /// badge and sound remain.
    public static func plan(
        _ requests: [ReminderRequest],
        now: Date,
        timeZone: TimeZone,
        locale: String,
        pending: [ScheduledReminder],
        contentShown: Bool
    ) -> Plan {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let clock = LocalWallClock(now: now, timeZone: timeZone)
        let chain = LocalizedText.fallbackChain(for: locale)
        let pendingDates = Set(pending.map(\.fireDate))
        var seenDates = Set<Date>()
        var candidates: [ScheduledReminder] = []
        var problems: [Problem] = []

        for (index, request) in requests.enumerated() {
            guard (0...3650).contains(request.day) else {
                problems.append(Problem(index: index, message: "day must be between 0 and 3650, got \(request.day)"))
                continue
            }
            guard (0...23).contains(request.hour), (0...59).contains(request.minute) else {
                problems.append(Problem(
                    index: index,
                    message: "time \(request.hour):\(request.minute) is not a valid hour (0–23) and minute (0–59)"))
                continue
            }
            guard let fireDate = clock.fireDate(day: request.day, hour: request.hour, minute: request.minute, calendar: calendar) else {
                problems.append(Problem(index: index, message: "no such local time in \(timeZone.identifier)"))
                continue
            }
            guard fireDate > now, !pendingDates.contains(fireDate), seenDates.insert(fireDate).inserted else {
                continue
            }
            guard let body = request.body.resolved(along: chain) else {
                problems.append(Problem(index: index, message: "body has no text for \(locale == "en" ? "en" : "\(locale) or en")"))
                continue
            }
            let title = request.title.flatMap { $0.resolved(along: chain) }
            candidates.append(ScheduledReminder(
                id: request.id ?? "permit.reminder.\(Int64(fireDate.timeIntervalSince1970))",
                fireDate: fireDate,
                title: contentShown ? title : nil,
                body: contentShown ? body : nil,
                action: request.action,
                sound: request.sound,
                badge: request.badge
            ))
        }

        return Plan(toSchedule: fitting(candidates, besides: pending, now: now), problems: problems)
    }

    /// iOS keeps the 64 soonest of everything pending: a new reminder later than that would
    /// be dropped by the system at once, so it is not scheduled at all. Soonest first.
    static func fitting(_ candidates: [ScheduledReminder], besides pending: [ScheduledReminder], now: Date) -> [ScheduledReminder] {
        let pendingSorted = pending.filter { $0.fireDate > now }.map(\.fireDate).sorted()
        var kept: [ScheduledReminder] = []
        for candidate in candidates.sorted(by: { $0.fireDate < $1.fireDate }) {
            let soonerPending = pendingSorted.prefix { $0 < candidate.fireDate }.count
            guard soonerPending + kept.count < systemPendingLimit else { break }
            kept.append(candidate)
        }
        return kept
    }
}
