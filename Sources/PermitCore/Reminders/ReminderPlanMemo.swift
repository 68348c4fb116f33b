import Foundation

/// The engine's last reminder plan and what it was made from, so that an event asking for the
/// same window against the same pending notifications is not planned again.
///
/// A policy returns the same list on most launches and foregrounds, and once its reminders are
/// pending, planning them again finds nothing to do, at a cost of fire dates, identifiers,
/// texts and a comparison with every pending notification. `ReminderPlanner` is a pure
/// function of its inputs and of `now`, and `now` matters only at the moments
/// `ReminderPlanner.planned` reports (the day's end, the zone's next offset change, the next
/// fire date or wall time to come). So the last plan is the answer when every input is equal
/// (compared in full: the list, the pending notifications, the zone, the settings and the
/// overflow rule; never a hash) and `now` lies between the last plan's `now` and that moment.
/// The engine's locale and platform never change, so they are not compared.
struct ReminderPlanMemo {
    /// Everything a plan depends on besides `now` and what the engine never changes.
    struct Inputs: Equatable {
        var overflow: PendingOverflow
        var settings: NotificationSettings
        var timeZone: TimeZone
        var requests: [ReminderRequest]
        var pending: [ScheduledReminder]
    }

    private var last: (inputs: Inputs, plan: ReminderPlanner.Plan, from: Date, until: Date)?
    /// How many plans were the last one again (for tests that the memo is used at all).
    private(set) var hits = 0

    /// The plan for `inputs` at `now`: the last one when it still holds, else `planning`'s
    /// (a plan and until when it holds), kept for the next call.
    mutating func plan(
        for inputs: Inputs, now: Date, planning: (Inputs) -> (plan: ReminderPlanner.Plan, until: Date)
    ) -> ReminderPlanner.Plan {
        if let last, now >= last.from, now < last.until, last.inputs == inputs {
            hits += 1
            return last.plan
        }
        let made = planning(inputs)
        last = (inputs, made.plan, now, made.until)
        return made.plan
    }
}
