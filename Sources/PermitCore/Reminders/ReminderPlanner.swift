import Foundation

/// Turns a policy's reminder requests into notifications to schedule (docs/reference/policy.md#plan-reminders).
///
/// A pure function of its inputs, so every rule is tested without a device: fire dates in the
/// device's time zone, past ones dropped, badge and sound only when nothing would show the
/// content. The list is the whole set the policy wants: it is reconciled with the policy's
/// pending notifications (those whose identifier starts with `permit.`), adding what is
/// missing, replacing what changed and removing what the policy no longer wants, within the
/// system's 64 alongside the app's own notifications.
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

    /// What to schedule, what to remove, and what was left out.
    public struct Plan: Sendable, Hashable {
        /// Notifications to schedule, soonest first: new ones, and changed ones (same
        /// identifier, so scheduling replaces the pending one).
        public var toSchedule: [ScheduledReminder]
        /// Identifiers of the policy's pending notifications it no longer wants, in order.
        public var toRemove: [String] = []
        /// Requests that were invalid (bad hour, text missing for the locale, ...).
        public var problems: [Problem]
    }

    /// The prefix of every identifier the policy's reminders get, so the planner knows which
    /// pending notifications are the policy's to change and leaves the app's own alone.
    public static let ownedPrefix = "permit."

    /// The system identifier of a reminder: `permit.<id>` for a policy's own id, or
    /// `permit.reminder.<fire time>` without one.
    public static func identifier(for id: String?, fireDate: Date) -> String {
        if let id { return ownedPrefix + id }
        return unnamedIdentifier(seconds: Int64(fireDate.timeIntervalSince1970))
    }

    /// `permit.reminder.<seconds>`, written in one allocation: string interpolation appended
    /// piece by piece and cost more than the rest of planning a reminder.
    static func unnamedIdentifier(seconds: Int64) -> String {
        let prefix: StaticString = "permit.reminder."
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for Int64's 20 digits and a sign
        return withUnsafeMutableBytes(of: &digits) { scratch in
            var value = seconds.magnitude
            var start = scratch.count
            repeat {
                start -= 1
                scratch[start] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            if seconds < 0 {
                start -= 1
                scratch[start] = UInt8(ascii: "-")
            }
            let number = UnsafeRawBufferPointer(rebasing: scratch[start...])
            return String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + number.count) { out in
                let head = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                _ = out.initialize(fromContentsOf: head)
                _ = out[head.count...].initialize(fromContentsOf: number)
                return head.count + number.count
            }
        }
    }

    /// Plans `requests` for `now` in `timeZone` against what is already pending.
    ///
    /// `contentShown` says whether a delivered notification is seen anywhere (an alert, the lock
    /// screen or Notification Center); when it is not, title and body are left out and only
    /// badge and sound remain. `overflow` is which notifications the system keeps past 64
    /// (docs/platform.md Q-01, Q-02); `deliveredLevel` turns a requested interruption level into
    /// the one iOS delivers (S-05), before the comparison with what is pending.
    public static func plan(
        _ requests: [ReminderRequest],
        now: Date,
        timeZone: TimeZone,
        locale: String,
        pending: [ScheduledReminder],
        contentShown: Bool,
        overflow: PendingOverflow = .soonest,
        deliveredLevel: (InterruptionLevel?) -> InterruptionLevel? = { $0 }
    ) -> Plan {
        plan(
            requests, now: now, timeZone: timeZone, locale: locale, chain: LocalizedText.fallbackChain(for: locale),
            pending: pending, contentShown: contentShown, overflow: overflow, deliveredLevel: deliveredLevel)
    }

    /// `plan` with the locale's fallback chain worked out by the caller (the engine keeps it:
    /// working it out again on every plan cost as much as a reminder).
    static func plan(
        _ requests: [ReminderRequest], now: Date, timeZone: TimeZone, locale: String, chain: [String],
        pending: [ScheduledReminder], contentShown: Bool, overflow: PendingOverflow,
        deliveredLevel: (InterruptionLevel?) -> InterruptionLevel?
    ) -> Plan {
        planned(
            requests, now: now, timeZone: timeZone, locale: locale, chain: chain, pending: pending,
            contentShown: contentShown, overflow: overflow, deliveredLevel: deliveredLevel
        ).plan
    }

    /// The plan, and until when the same inputs give the same plan (`ReminderPlanMemo`): the
    /// next moment at which `now` decides anything here. That is the local day's end or the
    /// zone's next offset change (`LocalWallClock.sameDayUntil`), the first fire date still to
    /// come (a reminder or a pending notification passing `now` is dropped), and the first wall
    /// time still to come (`LocalWallClock.fireDate` answers by arithmetic only from it on).
    static func planned(
        _ requests: [ReminderRequest], now: Date, timeZone: TimeZone, locale: String, chain: [String],
        pending: [ScheduledReminder], contentShown: Bool, overflow: PendingOverflow,
        deliveredLevel: (InterruptionLevel?) -> InterruptionLevel?
    ) -> (plan: Plan, until: Date) {
        // Made only for a fire date the clock's arithmetic cannot give (past the zone's next
        // offset change, or in a skipped or repeated hour): a calendar set to a zone cost more
        // than the rest of a plan, which a new process makes at its first launch.
        var calendar: Calendar?
        func gregorian() -> Calendar {
            if let calendar { return calendar }
            var made = Calendar(identifier: .gregorian)
            made.timeZone = timeZone
            calendar = made
            return made
        }
        let clock = LocalWallClock(now: now, timeZone: timeZone)
        var until = clock.sameDayUntil
        var seenIds = SeenIdentifiers()
        var candidates: [ScheduledReminder] = []
        candidates.reserveCapacity(requests.count)
        var problems: [Problem] = []

        for (index, request) in requests.enumerated() {
            guard (0...3650).contains(request.day) else {
                problems.append(Problem(index: index, message: "day must be between 0 and 3650, got \(request.day)"))
                continue
            }
            guard (0...23).contains(request.hour), (0...59).contains(request.minute) else {
                problems.append(
                    Problem(
                        index: index,
                        message: "time \(request.hour):\(request.minute) is not a valid hour (0–23) and minute (0–59)"))
                continue
            }
            let plain = clock.plainDate(day: request.day, hour: request.hour, minute: request.minute)
            if plain >= now { until = min(until, plain) }
            guard let fireDate = clock.fireDate(day: request.day, hour: request.hour, minute: request.minute, calendar: gregorian()) else {
                problems.append(Problem(index: index, message: "no such local time in \(timeZone.identifier)"))
                continue
            }
            // Past ones are dropped before their identifier is made; two reminders without an
            // id at the same time would be one notification.
            guard fireDate > now else { continue }
            until = min(until, fireDate)
            let id = identifier(for: request.id, fireDate: fireDate)
            guard seenIds.insert(id) else { continue }
            guard let body = request.body.resolved(along: chain) else {
                problems.append(Problem(index: index, message: "body has no text for \(locale == "en" ? "en" : "\(locale) or en")"))
                continue
            }
            let title = request.title.flatMap { $0.resolved(along: chain) }
            candidates.append(
                ScheduledReminder(
                    id: id, fireDate: fireDate, title: contentShown ? title : nil, body: contentShown ? body : nil,
                    action: request.action, sound: request.sound, badge: request.badge,
                    interruptionLevel: deliveredLevel(request.interruptionLevel)))
        }
        for reminder in pending where reminder.fireDate > now { until = min(until, reminder.fireDate) }
        return (reconcile(candidates, with: pending, now: now, overflow: overflow, problems: problems), until)
    }

    /// The wanted set against what is pending: the policy's notifications that are not wanted
    /// any more go, wanted ones that are missing or differ are scheduled, identical ones stay
    /// untouched (no needless replace, which on iOS would reset nothing but costs a call).
    /// `wanted`'s identifiers are distinct (`plan` drops a repeated one).
    static func reconcile(
        _ wanted: [ScheduledReminder], with pending: [ScheduledReminder], now: Date, overflow: PendingOverflow = .soonest,
        problems: [Problem]
    ) -> Plan {
        var owned: [ScheduledReminder] = []
        var foreignDates: [Date] = []
        // Usually every pending notification is the policy's and still to come: the list
        // itself then, without copying each reminder into a new one.
        if pending.indices.allSatisfy({ pending[$0].fireDate > now && pending[$0].id.hasPrefix(ownedPrefix) }) {
            owned = pending
        } else {
            for reminder in pending where reminder.fireDate > now {
                if reminder.id.hasPrefix(ownedPrefix) { owned.append(reminder) } else { foreignDates.append(reminder.fireDate) }
            }
        }
        let kept = fitting(wanted, besidesPendingAt: foreignDates, overflow: overflow)
        // What is pending is what is wanted, in the same order (both soonest first): nothing to
        // do. Exact: the kept identifiers are distinct, so the pending ones are too, and each
        // pending notification is the first (the only) one with its identifier.
        if kept == owned { return Plan(toSchedule: [], toRemove: [], problems: problems) }
        // A few on each side (nine in the packs): compared one by one, which costs less than
        // hashing every identifier into a dictionary and a set; many: hashed.
        if owned.count * kept.count <= 256 {
            return Plan(
                // By index rather than through `first(where:)`, which returned an optional copy.
                // (The comparison itself still copies both reminders, as this toolchain's
                // optimizer does.)
                toSchedule: kept.filter { wanted in
                    guard let same = owned.firstIndex(where: { $0.id == wanted.id }) else { return true }
                    return owned[same] != wanted
                },
                toRemove: owned.compactMap { old in kept.contains(where: { $0.id == old.id }) ? nil : old.id },
                problems: problems)
        }
        let pendingById = Dictionary(owned.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let keptIds = Set(kept.map(\.id))
        return Plan(
            toSchedule: kept.filter { pendingById[$0.id] != $0 },
            toRemove: owned.map(\.id).filter { !keptIds.contains($0) },
            problems: problems)
    }

    /// iOS keeps at most 64 pending notifications: the policy's share is what the app's own
    /// pending ones leave, soonest first. Where iOS keeps the 64 soonest, a reminder past that
    /// would be dropped by the system at once, so it is not scheduled at all, and a sooner one
    /// may push a later one of the app's out. Where it keeps the 64 added last (iOS 11+,
    /// docs/platform.md Q-01), one more would evict the first added, the app's own included, so
    /// the policy's reminders take only the places the app's own leave free.
    static func fitting(
        _ candidates: [ScheduledReminder], besides pending: [ScheduledReminder], overflow: PendingOverflow = .soonest
    ) -> [ScheduledReminder] {
        fitting(candidates, besidesPendingAt: pending.map(\.fireDate), overflow: overflow)
    }

    /// `fitting` with only the fire dates of the app's own pending notifications, which is all
    /// it needs.
    static func fitting(
        _ candidates: [ScheduledReminder], besidesPendingAt pendingDates: [Date], overflow: PendingOverflow
    ) -> [ScheduledReminder] {
        // Already soonest first (the planner's order, usually), the list is kept as it is:
        // sorting, a stable sort, would give the same order in a copy.
        let inOrder = candidates.indices.dropFirst().allSatisfy { !(candidates[$0].fireDate < candidates[$0 - 1].fireDate) }
        let soonestFirst = inOrder ? candidates : candidates.sorted(by: { $0.fireDate < $1.fireDate })
        if overflow == .newest || pendingDates.isEmpty {
            // Without the app's own pending ones, the soonest-kept rule keeps a prefix too.
            let room = max(0, systemPendingLimit - pendingDates.count)
            return soonestFirst.count <= room ? soonestFirst : Array(soonestFirst.prefix(room))
        }
        let pendingSorted = pendingDates.sorted()
        var kept: [ScheduledReminder] = []
        for candidate in soonestFirst {
            let soonerPending = pendingSorted.prefix { $0 < candidate.fireDate }.count
            guard soonerPending + kept.count < systemPendingLimit else { break }
            kept.append(candidate)
        }
        return kept
    }
}
