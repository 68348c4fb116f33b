import Foundation

/// `permit simulate --precision 0.5pp`: the user count that makes every reported share's 95%
/// interval at most ± that many percentage points.
///
/// For a share p of n users the interval's half-width is about z·√(p(1−p)/n) (Wilson's is a
/// little narrower near 0 and 1), so n = ⌈z²·p(1−p)/h²⌉ users give half-width h. p(1−p) is
/// largest at p = ½, so the count uses that worst case: every share the report gives, whatever
/// its value, then has an interval of ± h or less. (0.5 pp: 38,415 users; 1 pp: 9,604; 2 pp:
/// 2,401.) A difference between two arms (different users) has an interval about √2 times as
/// wide; between two policies (the same users, paired) usually narrower than that.
public struct Precision: Sendable, Hashable, CustomStringConvertible {
    /// The target half-width, as a share (0.005 for 0.5 pp).
    public let halfWidth: Double

    /// Reads `0.5pp` (percentage points; the unit is required so it cannot be misread as 50%).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix("pp"), let points = Double(trimmed.dropLast(2)), points.isFinite,
            points >= 0.01, points <= 50
        else { return nil }
        halfWidth = points / 100
    }

    /// The users the worst case (p = ½) needs: ⌈z²/(4h²)⌉.
    public var users: Int {
        Int((Confidence.z * Confidence.z * 0.25 / (halfWidth * halfWidth)).rounded(.up))
    }

    /// The users that give the smallest arm, with `share` of the users, at least `users` of
    /// its own, even when the assignment puts two standard deviations fewer in it than its share:
    /// the least u with u·s − 2·√(u·s(1−s)) ≥ n, solved as a quadratic in √u. Arms are drawn
    /// per install, so their sizes vary; this margin covers all but about 2% of runs.
    public func users(smallestArmShare share: Double) -> Int {
        guard share > 0, share < 1 else { return users }
        let n = Double(users), spread = (share * (1 - share)).squareRoot()
        let root = (2 * spread + (4 * spread * spread + 4 * share * n).squareRoot()) / (2 * share)
        return Int((root * root).rounded(.up))
    }

    /// The worst-case (p = ½) half-width of a share of `n` users: z/(2√n).
    public static func halfWidth(users n: Int) -> Double {
        n > 0 ? Confidence.z / (2 * Double(n).squareRoot()) : 1
    }

    /// The precision as the flag writes it (`±0.5 pp`).
    public var description: String { String(format: "±%g pp", halfWidth * 100) }
}
