import Foundation

/// A 95% confidence interval, so that a report says how sure each figure is: a simulated share
/// is drawn from a finite population and moves with the seed.
public struct Interval: Sendable, Hashable {
    /// The lower bound.
    public let low: Double
    /// The upper bound.
    public let high: Double

    /// Whether `value` lies inside (bounds included).
    public func contains(_ value: Double) -> Bool { low <= value && value <= high }
}

/// Whether two policies differ, judged from the interval of their difference.
public enum Verdict: String, Sendable {
    /// The interval excludes 0.
    case clearDifference = "clear difference"
    /// The interval includes 0: the run cannot tell the policies apart on this figure.
    case tooCloseToCall = "too close to call"
}

/// The difference between a policy's share and the first policy's, with its interval.
public struct Difference: Sendable, Hashable {
    /// This policy's share minus the first policy's.
    public let value: Double
    /// The 95% interval of the difference.
    public let interval: Interval
    /// Clear when the interval excludes 0.
    public var verdict: Verdict { interval.low > 0 || interval.high < 0 ? .clearDifference : .tooCloseToCall }
}

/// 95% intervals for shares and their differences, written from the formulas (Wilson 1927;
/// Newcombe 1998, method 10), not taken from a library.
///
/// Wilson's score interval, unlike the textbook p ± z·√(p(1−p)/n), stays inside 0…1 and keeps
/// close to its nominal coverage for shares near 0 or 1 and for small n, which simulations of a
/// few hundred users and rare outcomes (uninstalls) produce.
public enum Confidence {
    /// The standard normal quantile for 95% (two-sided).
    public static let z = 1.959_963_984_540_054

    /// Wilson's score interval for `successes` out of `trials`: centre
    /// (p + z²/2n) / (1 + z²/n), half-width z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
    /// With no trials it says nothing: 0…1.
    public static func wilson(successes: Int, of trials: Int) -> Interval {
        guard trials > 0 else { return Interval(low: 0, high: 1) }
        let n = Double(trials), p = Double(successes) / n, z2 = z * z
        let denominator = 1 + z2 / n
        let centre = (p + z2 / (2 * n)) / denominator
        let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / denominator
        return Interval(low: max(0, centre - half), high: min(1, centre + half))
    }

    /// The difference of two shares, `a − b`, with Newcombe's hybrid score interval built from
    /// the two Wilson intervals: d − √((pa − la)² + (ub − pb)²) to d + √((ua − pa)² + (pb − lb)²).
    ///
    /// It assumes the two samples independent. Policies in one run meet the same simulated
    /// users (same traits, same random streams), whose outcomes under two policies tend to go
    /// together; that positive correlation makes the true spread of the difference smaller, so
    /// the interval is conservative (wider than needed): a "clear difference" is clear.
    public static func difference(_ a: (successes: Int, trials: Int), minus b: (successes: Int, trials: Int)) -> Difference {
        let pa = a.trials > 0 ? Double(a.successes) / Double(a.trials) : 0
        let pb = b.trials > 0 ? Double(b.successes) / Double(b.trials) : 0
        let wa = wilson(successes: a.successes, of: a.trials), wb = wilson(successes: b.successes, of: b.trials)
        let d = pa - pb
        let below = ((pa - wa.low) * (pa - wa.low) + (wb.high - pb) * (wb.high - pb)).squareRoot()
        let above = ((wa.high - pa) * (wa.high - pa) + (pb - wb.low) * (pb - wb.low)).squareRoot()
        return Difference(value: d, interval: Interval(low: d - below, high: d + above))
    }
}
