import Foundation

/// What a report says about the size of a live test for one simulated difference: a point
/// estimate alone would pretend a precision the simulation does not have (a clear difference
/// of 2 points whose 95% interval runs from 0.5 to 3.5 needs 25 times more installs at one end
/// than at the other), so the size comes with its range over the difference's own interval; a
/// difference too close to call gives no size of its own, only the sizes for the smallest
/// differences worth detecting; a policy that prompted nobody has nothing to test.
public enum LiveTestSizing: Sendable, Hashable {
    /// A clear difference: installs per arm at the simulated difference, and the range over its
    /// 95% interval (`most` at the end nearest 0, `fewest` at the far end).
    case clear(installs: Int, fewest: Int, most: Int)
    /// Too close to call: no size from it; installs per arm to detect each of
    /// `smallestWorthDetecting` (a difference in share, and its installs).
    case tooCloseToCall([Detectable])
    /// The policy showed no prompt to anyone.
    case promptedNobody

    /// A difference worth detecting and the installs per arm a live test needs for it.
    public struct Detectable: Sendable, Hashable {
        /// The difference in share (0.01: one point).
        public let difference: Double
        /// Installs per arm.
        public let installs: Int
    }

    /// The differences in share a team could still want to detect when the simulation cannot
    /// tell the policies apart: 1 and 2 points.
    public static let smallestWorthDetecting = [0.01, 0.02]

    /// The sizing for `difference` (treatment minus `control`) at `alpha`.
    public static func sizing(
        control: Double, difference: Difference, alpha: Double, promptedAnyone: Bool = true
    ) -> LiveTestSizing {
        guard promptedAnyone else { return .promptedNobody }
        func installs(_ delta: Double) -> Int {
            LiveTestPlan(control: control, treatment: min(1, max(0, control + delta)), alpha: alpha).installsPerArm ?? Int.max / 2
        }
        let interval = difference.interval
        guard difference.verdict == .clearDifference, interval.low > 0 || interval.high < 0 else {
            return .tooCloseToCall(smallestWorthDetecting.map { Detectable(difference: $0, installs: installs($0)) })
        }
        let near = interval.low > 0 ? interval.low : interval.high
        let far = interval.low > 0 ? interval.high : interval.low
        return .clear(installs: installs(difference.value), fewest: installs(far), most: installs(near))
    }

    /// The sizing as a phrase of the live-test lines.
    public var text: String {
        switch self {
        case .clear(let installs, let fewest, let most):
            return "about \(SimulationResult.grouped(installs)) installs per arm "
                + "(\(SimulationResult.grouped(fewest)) to \(SimulationResult.grouped(most)) over the difference's 95% interval)"
        case .tooCloseToCall(let smallest):
            return "no size from this run (too close to call); for the smallest differences worth detecting: "
                + smallest.map { String(format: "%.0f pp", $0.difference * 100) + " needs about \(SimulationResult.grouped($0.installs))" }
                .joined(separator: ", ") + " installs per arm"
        case .promptedNobody:
            return "prompted nobody, so there is nothing of its own to test"
        }
    }
}
