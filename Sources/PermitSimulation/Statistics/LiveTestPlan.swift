import Foundation

/// How many installs per arm a live A/B test needs to detect a simulated difference: the step
/// after a simulation, because a simulation measures the model, and only the app's real users
/// decide.
///
/// A live test's arms are different users (independent samples), so the size is the classic
/// one for comparing two proportions with a two-sided test (Fleiss, Levin & Paik, *Statistical
/// Methods for Rates and Proportions*, 3rd ed., 2003, §4.2, without continuity correction):
/// n = [z₁₋α/₂·√(2·p̄(1−p̄)) + z₁₋β·√(p₁(1−p₁) + p₂(1−p₂))]² / (p₁ − p₂)², with p̄ the mean of
/// the two shares, per arm, arms of equal size.
public struct LiveTestPlan: Sendable, Hashable {
    /// The first arm's share (the policy compared against).
    public let control: Double
    /// The other arm's share.
    public let treatment: Double
    /// The test's two-sided significance level.
    public let alpha: Double
    /// The chance the test detects the difference if it is real.
    public let power: Double
    /// Installs per arm; `nil` when the shares are equal (nothing to detect).
    public let installsPerArm: Int?

    /// The power a plan is made for.
    public static let defaultPower = 0.8
    /// The level a plan uses unless the team gives its own (`--alpha`).
    public static let defaultAlpha = 0.05

    /// The plan to tell `treatment` from `control`.
    public init(control: Double, treatment: Double, alpha: Double = defaultAlpha, power: Double = defaultPower) {
        self.control = control
        self.treatment = treatment
        self.alpha = alpha
        self.power = power
        installsPerArm = Self.installsPerArm(control, treatment, alpha: alpha, power: power)
    }

    static func installsPerArm(_ p1: Double, _ p2: Double, alpha: Double, power: Double) -> Int? {
        let delta = abs(p1 - p2)
        guard delta > 1e-9 else { return nil }
        let mean = (p1 + p2) / 2
        let a = Normal.quantile(1 - alpha / 2) * (2 * mean * (1 - mean)).squareRoot()
        let b = Normal.quantile(power) * (p1 * (1 - p1) + p2 * (1 - p2)).squareRoot()
        let n = (a + b) * (a + b) / (delta * delta)
        return n >= Double(Int.max / 2) ? Int.max / 2 : max(2, Int(n.rounded(.up)))
    }
}

/// The standard normal distribution's quantile function.
enum Normal {
    /// Φ(x) = erfc(−x/√2)/2.
    static func cdf(_ x: Double) -> Double { erfc(-x / 2.0.squareRoot()) / 2 }

    /// The x with Φ(x) = p, for 0 < p < 1, found by bisection on `cdf` (Φ is increasing): 200
    /// halvings of [−40, 40] reach a double's precision, and the plan calls it twice.
    static func quantile(_ p: Double) -> Double {
        var low = -40.0, high = 40.0
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if cdf(middle) < p { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
