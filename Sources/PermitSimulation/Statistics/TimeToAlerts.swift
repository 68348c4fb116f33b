import Foundation

/// How long users took, from their first launch, to be able to receive alerts: the median over
/// **all** simulated users, with a 95% interval.
///
/// Why over all users: a median over only the users who ever got alerts rewards a policy that
/// reaches fewer, faster (ask only the eager, leave the rest) and cannot be compared across
/// policies with different reach. Over all users, one who never could receive alerts counts as
/// "after the run": the median is a time when half the users could, or "after the run" when
/// fewer than half ever could.
///
/// The interval is the distribution-free one for a median, from order statistics (Conover,
/// *Practical Nonparametric Statistics*, 3rd ed., 1999, §3.2): with n values sorted, the ranks
/// j = ⌊n/2 − z√n/2⌋ and k = ⌈1 + n/2 + z√n/2⌉ bound the median with about 95% confidence,
/// whatever the distribution of times (it has a long right tail: users who reach alerts weeks
/// later). An end of it past the last user who reached alerts is "after the run".
public struct TimeToAlerts: Sendable, Hashable {
    /// The users the median is over (every simulated user).
    public let users: Int
    /// The users who could receive alerts at some point in the run.
    public let reached: Int
    /// The median, in hours; `nil`: after the run (fewer than half the users ever could).
    public let medianHours: Double?
    /// The interval's lower end in hours; `nil`: after the run.
    public let lowHours: Double?
    /// The interval's upper end in hours; `nil`: after the run.
    public let highHours: Double?

    /// The figure from the seconds each user who ever reached alerts took, of `users` in all.
    init(secondsOfReached seconds: [Int32], users: Int) {
        let sorted = seconds.sorted()
        self.users = users
        reached = sorted.count
        // The i-th smallest time over all users (1-based); past the reached users: after the run.
        func value(_ rank: Int) -> Double? {
            rank >= 1 && rank <= sorted.count ? Double(sorted[rank - 1]) / 3600 : nil
        }
        guard users > 0 else {
            medianHours = nil
            lowHours = nil
            highHours = nil
            return
        }
        if users % 2 == 1 {
            medianHours = value((users + 1) / 2)
        } else if let below = value(users / 2), let above = value(users / 2 + 1) {
            medianHours = (below + above) / 2
        } else {
            medianHours = nil
        }
        let n = Double(users), spread = Confidence.z * n.squareRoot() / 2
        lowHours = value(max(1, Int((n / 2 - spread).rounded(.down))))
        highHours = value(min(users, Int((1 + n / 2 + spread).rounded(.up))))
    }

    /// `5.2 h [4.8, 5.9 h]`, `after the run [3.1 d, after]`.
    public var description: String {
        func text(_ hours: Double?) -> String { hours.map(SimulationResult.duration(hours:)) ?? "after the run" }
        guard medianHours != nil || lowHours != nil else { return "after the run" }
        return "\(text(medianHours)) [\(lowHours.map(SimulationResult.duration(hours:)) ?? "after"), "
            + "\(highHours.map(SimulationResult.duration(hours:)) ?? "after")]"
    }
}
