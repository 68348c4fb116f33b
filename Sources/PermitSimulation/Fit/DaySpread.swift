import Foundation

/// Whether sessions per day spread more than a Poisson count's, from the inner days' counts:
/// their sum, the sum of their squares and the number of days.
///
/// Why: a Poisson count's variance equals its mean; real session counts have more empty days
/// and more busy ones (people differ, and a day differs from the next), and a model with the
/// right mean but a Poisson's spread gets the share of users seen on day 1 or day 7 wrong by a
/// few points. The test is the index of dispersion, Σ(x − m)²/m, which for Poisson counts
/// follows a χ² with days − 1 degrees of freedom; far above it (z above 3.29, a chance under
/// 1 in 2,000 for Poisson counts) the fit writes a negative binomial with the method of
/// moments' dispersion (variance − mean) / mean².
struct DaySpread: Sendable {
    let sum: Int
    let squares: Int
    let days: Int

    /// The mean count per day.
    var mean: Double { Double(sum) / Double(max(1, days)) }

    /// The days' variance (with days − 1 in the denominator).
    var variance: Double {
        guard days > 1 else { return 0 }
        return max(0, (Double(squares) - Double(days) * mean * mean) / Double(days - 1))
    }

    /// The dispersion to write, or `nil` when the counts are consistent with a Poisson's spread.
    var overdispersion: Double? {
        guard days > 30, mean > 0 else { return nil }
        let freedom = Double(days - 1)
        let index = freedom * variance / mean
        let z = (index - freedom) / (2 * freedom).squareRoot()
        guard z > 3.29 else { return nil }
        return (variance - mean) / (mean * mean)
    }

    /// The mean with its 95% interval from the days' own spread (wider than a Poisson's).
    var meanWithSpread: FittedModel.Figure {
        let half = Confidence.z * (variance / Double(max(1, days))).squareRoot()
        return FittedModel.Figure(value: mean, interval: Interval(low: max(0, mean - half), high: mean + half), n: days)
    }
}
