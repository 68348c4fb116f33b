import Foundation

/// A confidence interval (95% unless said otherwise), so that a report says how sure each
/// figure is: a simulated share is drawn from a finite population and moves with the seed.
public struct Interval: Sendable, Hashable {
    /// The lower bound.
    public let low: Double
    /// The upper bound.
    public let high: Double

    /// Whether `value` lies inside (bounds included).
    public func contains(_ value: Double) -> Bool { low <= value && value <= high }
}

/// Whether two policies differ, judged from the interval of their difference (or, for a
/// comparison corrected for multiplicity, from its Holm-adjusted p-value).
public enum Verdict: String, Sendable {
    /// The interval excludes 0 (corrected: the adjusted p-value is below 0.05).
    case clearDifference = "clear difference"
    /// The run cannot tell the policies apart on this figure.
    case tooCloseToCall = "too close to call"
}

/// The difference between two shares (a policy's minus another's), with its interval.
public struct Difference: Sendable, Hashable {
    /// This policy's share minus the other's.
    public let value: Double
    /// The 95% interval of the difference.
    public let interval: Interval
    /// Whether the two shares come from the same users (a paired interval) or from different
    /// users (arms of an experiment: the independent-samples interval).
    public let paired: Bool
    /// The two-sided p-value of "no difference" from the test that inverts the interval: the
    /// smallest α at which the (1 − α) interval excludes 0. So p < 0.05 exactly when the 95%
    /// interval excludes 0, and a verdict from p never contradicts the interval.
    public let pValue: Double
    /// The correction for the comparisons a report makes, when this difference is one of the
    /// family the report corrects (`nil`: uncorrected, exploratory).
    public internal(set) var correction: Correction?

    /// Holm's step-down over a family of comparisons.
    public struct Correction: Sendable, Hashable {
        /// The Holm-adjusted p-value (at least `pValue`).
        public let adjustedP: Double
        /// How many comparisons the family holds.
        public let family: Int
    }

    /// Corrected: clear when the Holm-adjusted p-value is below 0.05 (which implies the 95%
    /// interval excludes 0). Uncorrected: clear when the 95% interval excludes 0.
    public var verdict: Verdict {
        if let correction { return correction.adjustedP < Confidence.alpha ? .clearDifference : .tooCloseToCall }
        return interval.low > 0 || interval.high < 0 ? .clearDifference : .tooCloseToCall
    }
}

/// Intervals for shares and their differences, written from the formulas (Wilson 1927;
/// Newcombe 1998, method 10, for independent and for paired samples; Holm 1979), not taken
/// from a library.
///
/// Wilson's score interval, unlike the textbook p ± z·√(p(1−p)/n), stays inside 0…1 and keeps
/// close to its nominal coverage for shares near 0 or 1 and for small n, which simulations of a
/// few hundred users and rare outcomes (uninstalls) produce.
///
/// Every interval covers the randomness of the simulated users only: how far the figure would
/// move with another seed on the same model, not how wrong the model's own figures may be.
public enum Confidence {
    /// The standard normal quantile for 95% (two-sided).
    public static let z = 1.959_963_984_540_054
    /// The error rate of the 95% intervals and of the verdicts.
    public static let alpha = 0.05

    /// Wilson's score interval for `successes` out of `trials`: centre
    /// (p + z²/2n) / (1 + z²/n), half-width z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
    /// With no trials it says nothing: 0…1.
    public static func wilson(successes: Int, of trials: Int, z: Double = z) -> Interval {
        guard trials > 0 else { return Interval(low: 0, high: 1) }
        let n = Double(trials), p = Double(successes) / n, z2 = z * z
        let denominator = 1 + z2 / n
        let centre = (p + z2 / (2 * n)) / denominator
        let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / denominator
        return Interval(low: max(0, centre - half), high: min(1, centre + half))
    }

    /// The difference of two shares of different users, `a − b`, with Newcombe's hybrid score
    /// interval for independent samples (Newcombe 1998, "Interval estimation for the difference
    /// between independent proportions", method 10) built from the two Wilson intervals:
    /// d − √((pa − la)² + (ub − pb)²) to d + √((ua − pa)² + (pb − lb)²).
    ///
    /// For different users only (the arms of an experiment). Two policies of one run meet the
    /// same users: use `paired`.
    public static func difference(_ a: (successes: Int, trials: Int), minus b: (successes: Int, trials: Int)) -> Difference {
        let interval = { (z: Double) in independentInterval(a, minus: b, z: z) }
        let d = share(a) - share(b)
        return Difference(value: d, interval: interval(z), paired: false, pValue: pValue(d, interval))
    }

    /// The paired 2×2 table of two outcomes measured on the same users: users with the outcome
    /// under both, under `a` only, under `b` only, under neither.
    public struct PairedTable: Sendable, Hashable {
        /// Users with the outcome under both.
        public var both: Int
        /// Users with the outcome under `a` only.
        public var onlyA: Int
        /// Users with the outcome under `b` only.
        public var onlyB: Int
        /// Users with the outcome under neither.
        public var neither: Int

        /// A table.
        public init(both: Int, onlyA: Int, onlyB: Int, neither: Int) {
            self.both = both
            self.onlyA = onlyA
            self.onlyB = onlyB
            self.neither = neither
        }

        /// All the users.
        public var users: Int { both + onlyA + onlyB + neither }
    }

    /// The difference of two shares of the same users, `a − b` = (onlyA − onlyB)/n, with
    /// Newcombe's hybrid score interval for paired data (Newcombe 1998, "Improved confidence
    /// intervals for the difference between binomial proportions based on paired data",
    /// Stat. Med. 17:2635–2650, method 10, with the corrected φ). With the Wilson intervals
    /// (l₁, u₁) of pa and (l₂, u₂) of pb:
    /// L = d − √((pa − l₁)² − 2φ(pa − l₁)(u₂ − pb) + (u₂ − pb)²),
    /// U = d + √((u₁ − pa)² − 2φ(u₁ − pa)(pb − l₂) + (pb − l₂)²),
    /// where φ is the correlation of the two outcomes over the users,
    /// (both·neither − onlyA·onlyB) / √((both+onlyA)(onlyB+neither)(both+onlyB)(onlyA+neither)),
    /// with its numerator A corrected towards 0 by n/2 (A − n/2 when A > n/2, 0 when
    /// 0 ≤ A ≤ n/2, A when A < 0), and φ = 0 when a margin is empty.
    ///
    /// Users whose outcomes go together (φ > 0) make the difference move less from seed to seed
    /// than two independent samples would; the independent-samples interval ignores that and is
    /// too wide (or, with φ < 0, too narrow).
    public static func paired(_ table: PairedTable) -> Difference {
        let interval = { (z: Double) in pairedInterval(table, z: z) }
        let n = table.users
        let d = n > 0 ? Double(table.onlyA - table.onlyB) / Double(n) : 0
        return Difference(value: d, interval: interval(z), paired: true, pValue: pValue(d, interval))
    }

    /// Holm's step-down correction (Holm 1979, "A simple sequentially rejective multiple test
    /// procedure"): with the m p-values sorted, p₍ᵢ₎ is adjusted to max over j ≤ i of
    /// min(1, (m − j + 1)·p₍ⱼ₎). Rejecting where the adjusted value is below α keeps the chance of
    /// any false "clear difference" in the family at α or less, whatever the dependence between
    /// the comparisons. Ties in p keep their order (the result does not depend on it).
    public static func holm(_ differences: [Difference]) -> [Difference] {
        let m = differences.count
        let order = differences.indices.sorted { (differences[$0].pValue, $0) < (differences[$1].pValue, $1) }
        var result = differences
        var running = 0.0
        for (rank, index) in order.enumerated() {
            running = max(running, min(1, Double(m - rank) * differences[index].pValue))
            result[index].correction = Difference.Correction(adjustedP: running, family: m)
        }
        return result
    }

    // MARK: The intervals at any level, and the p-values that invert them

    private static func share(_ count: (successes: Int, trials: Int)) -> Double {
        count.trials > 0 ? Double(count.successes) / Double(count.trials) : 0
    }

    static func independentInterval(
        _ a: (successes: Int, trials: Int), minus b: (successes: Int, trials: Int), z: Double
    ) -> Interval {
        let pa = share(a), pb = share(b)
        let wa = wilson(successes: a.successes, of: a.trials, z: z), wb = wilson(successes: b.successes, of: b.trials, z: z)
        let d = pa - pb
        let below = ((pa - wa.low) * (pa - wa.low) + (wb.high - pb) * (wb.high - pb)).squareRoot()
        let above = ((wa.high - pa) * (wa.high - pa) + (pb - wb.low) * (pb - wb.low)).squareRoot()
        return Interval(low: d - below, high: d + above)
    }

    static func pairedInterval(_ t: PairedTable, z: Double) -> Interval {
        let n = t.users
        guard n > 0 else { return Interval(low: -1, high: 1) }
        let a = t.both + t.onlyA, b = t.both + t.onlyB
        let pa = Double(a) / Double(n), pb = Double(b) / Double(n), d = pa - pb
        let w1 = wilson(successes: a, of: n, z: z), w2 = wilson(successes: b, of: n, z: z)
        let phi = correlation(t)
        let (x1, y1) = (pa - w1.low, w2.high - pb)
        let (x2, y2) = (w1.high - pa, pb - w2.low)
        let below = max(0, x1 * x1 - 2 * phi * x1 * y1 + y1 * y1).squareRoot()
        let above = max(0, x2 * x2 - 2 * phi * x2 * y2 + y2 * y2).squareRoot()
        return Interval(low: max(-1, d - below), high: min(1, d + above))
    }

    /// φ with Newcombe's corrected numerator (see `paired`).
    static func correlation(_ t: PairedTable) -> Double {
        let (e, f, g, h) = (Double(t.both), Double(t.onlyA), Double(t.onlyB), Double(t.neither))
        let margins = (e + f) * (g + h) * (e + g) * (f + h)
        guard margins > 0 else { return 0 }
        let half = Double(t.users) / 2
        var numerator = e * h - f * g
        if numerator > half { numerator -= half } else if numerator >= 0 { numerator = 0 }
        return numerator / margins.squareRoot()
    }

    /// The two-sided p-value of d = 0 that inverts `interval(z)`: 2(1 − Φ(z*)) with z* the
    /// level at which the interval's nearer bound reaches 0 (found by bisection; the bounds
    /// move outwards as z grows). 1 when d = 0.
    static func pValue(_ d: Double, _ interval: (Double) -> Interval) -> Double {
        guard d != 0 else { return 1 }
        func excludesZero(_ z: Double) -> Bool {
            let bounds = interval(z)
            return bounds.low > 0 || bounds.high < 0
        }
        var (inside, outside) = (0.0, 40.0)  // excludes 0 at `inside`, not at `outside`
        guard excludesZero(inside) else { return 1 }
        guard !excludesZero(outside) else { return 0 }
        for _ in 0..<60 {
            let middle = (inside + outside) / 2
            if excludesZero(middle) { inside = middle } else { outside = middle }
        }
        return erfc(inside / 2.0.squareRoot())
    }
}
