import Foundation
import PermitCore

/// `permit simulate --sensitivity N`: the same comparison on N models drawn from the ranges of
/// the model's uncertain figures, so a report says whether its verdict is the model's noise-free
/// answer or hangs on an assumption (docs/simulate.md, "Sensitivity").
///
/// Each draw sets every uncertain figure uniformly within its range (`UserModel.drawn`), from a
/// stream seeded by the run's seed and the draw's number, and runs the same policies with the
/// same users, days and seed: the draws, and so the result, are the same whatever the workers.
/// A run with `--sensitivity N` costs N + 1 simulations.
public enum Sensitivity {
    /// The share of draws whose verdict must agree with the model's for a clear difference to be
    /// called robust: 95% (19 of 20 draws, 95 of 100).
    public static let robustShare = 0.95
    /// A figure is named in a verdict when its rank correlation with the difference is at least
    /// this in size (the strongest is always named); at most `namedFigures` are.
    public static let namedCorrelation = 0.5
    /// How many figures a comparison lists as the most sensitive.
    public static let namedFigures = 3

    /// Runs `draws` drawn models after the model's own run `base` (same policies, options).
    /// `progress` gets (users done, users in all) over the draws.
    public static func run(
        policies: [SimulationPolicy], model: UserModel, options: SimulationOptions, draws: Int, base: SimulationResult,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async -> SensitivityResult {
        var drawn: [SensitivityResult.Draw] = []
        let perRun = options.users * policies.count
        for index in 0..<draws {
            let (drawnModel, values) = model.drawn(at: index, seed: options.seed)
            let result = await Simulation.run(policies: policies, model: drawnModel, options: options) { done, _ in
                progress?(index * perRun + done, draws * perRun)
            }
            drawn.append(SensitivityResult.Draw(values: values, result: result))
        }
        return SensitivityResult(figures: model.uncertainFigures, base: base, draws: drawn)
    }
}

extension UserModel {
    /// The `index`-th drawn model of a run seeded `seed` (each draw its own stream, so a draw
    /// does not depend on how many come before it or on the workers).
    public func drawn(at index: Int, seed: UInt64) -> (model: UserModel, values: [Double]) {
        var rng = SplitMix64.stream(seed: seed ^ 0x5E25_171F_17E5_0D1A, index: UInt64(index))
        return drawn(&rng)
    }
}

/// What the drawn models say about each comparison of the run.
public struct SensitivityResult: Sendable {
    /// The uncertain figures, with the model's values and their ranges.
    public let figures: [UncertainFigure]
    /// The day compared: the run's last.
    public let day: Int
    /// One entry per drawn model.
    public let draws: [Draw]
    /// Each policy after the first against the first, on "can receive alerts" on the last day.
    public let comparisons: [Comparison]

    /// One drawn model and what the policies did on it.
    public struct Draw: Sendable {
        /// The drawn value of each uncertain figure, in `figures`' order.
        public let values: [Double]
        /// The run on this model.
        public let result: SimulationResult
    }

    /// A figure whose drawn value goes with the difference.
    public struct Influence: Sendable, Hashable {
        /// The figure's name.
        public let figure: String
        /// Spearman's rank correlation between the figure's drawn value and the difference
        /// across the draws: + when a higher value makes the difference larger.
        public let correlation: Double
    }

    /// The verdict that takes the assumptions into account.
    public enum Headline: Sendable, Hashable, CustomStringConvertible {
        /// Clear on the model, and the same sign and clear in at least `robustShare` of the draws.
        case robust
        /// Clear on the model, but not in enough draws; the figures the difference follows most.
        case dependsOnAssumptions([String])
        /// Not clear on the model itself.
        case tooCloseToCall

        /// The label reports print.
        public var description: String {
            switch self {
            case .robust: "clear on this model and robust to the assumptions"
            case .dependsOnAssumptions(let names): "clear on this model, depends on assumptions (\(names.joined(separator: ", ")))"
            case .tooCloseToCall: "too close to call"
            }
        }
    }

    /// One policy against the first.
    public struct Comparison: Sendable {
        /// The policy's name.
        public let policy: String
        /// The first policy's name.
        public let versus: String
        /// The difference on the model itself.
        public let base: Difference
        /// The difference on each drawn model.
        public let drawn: [Difference]
        /// Draws whose verdict is the model's (both clear with the same sign, or both too close).
        public let holds: Int
        /// The smallest and largest difference over the draws.
        public let differenceRange: ClosedRange<Double>
        /// The figures the difference follows most, strongest first (at most `namedFigures`).
        public let mostSensitive: [Influence]
        /// The verdict with the assumptions.
        public let headline: Headline

        /// Draws whose verdict differs from the model's.
        public var flips: Int { drawn.count - holds }
    }

    init(figures: [UncertainFigure], base: SimulationResult, draws: [Draw]) {
        self.figures = figures
        self.draws = draws
        let day = base.days
        self.day = day
        // The verdict each run's report gives: paired, and Holm-corrected over its headline family.
        func headline(_ result: SimulationResult, _ index: Int) -> Difference {
            result.comparisons().first { $0.policy == index && $0.from == 0 && $0.day == day }?.difference
                ?? result.difference(policy: index, from: 0, state: .fullAlerts, day: day)
        }
        comparisons = base.policies.indices.dropFirst().map { index in
            let baseDifference = headline(base, index)
            let drawn = draws.map { headline($0.result, index) }
            let holds = drawn.filter { Self.sameVerdict($0, baseDifference) }.count
            let values = drawn.map(\.value)
            let top = Self.mostSensitive(figures: figures, drawn: draws.map(\.values), outcome: values)
            let headline: Headline
            if baseDifference.verdict != .clearDifference {
                headline = .tooCloseToCall
            } else if Double(holds) >= Sensitivity.robustShare * Double(drawn.count) {
                headline = .robust
            } else {
                headline = .dependsOnAssumptions(Self.named(top))
            }
            return Comparison(
                policy: base.policies[index].name, versus: base.policies[0].name, base: baseDifference, drawn: drawn,
                holds: holds, differenceRange: (values.min() ?? baseDifference.value)...(values.max() ?? baseDifference.value),
                mostSensitive: top, headline: headline)
        }
    }

    /// The figures `outcome` follows most over the draws, strongest first (at most
    /// `Sensitivity.namedFigures`): Spearman's rank correlation between each figure's drawn
    /// value (`drawn[draw][figure]`) and the outcome; a figure that does not vary is left out.
    static func mostSensitive(figures: [UncertainFigure], drawn: [[Double]], outcome: [Double]) -> [Influence] {
        var influences: [Influence] = []
        for (column, figure) in figures.enumerated() {
            guard let rho = spearman(drawn.map { $0[column] }, outcome) else { continue }
            influences.append(Influence(figure: figure.name, correlation: rho))
        }
        // Strongest first; a tie keeps the figures' order, so the report is the same each run.
        let ranked = influences.enumerated().sorted {
            abs($0.element.correlation) != abs($1.element.correlation)
                ? abs($0.element.correlation) > abs($1.element.correlation) : $0.offset < $1.offset
        }.map(\.element)
        return Array(ranked.prefix(Sensitivity.namedFigures))
    }

    /// The names a verdict that depends on assumptions gives: the strongest figure always, the
    /// next ones when their correlation is at least `Sensitivity.namedCorrelation` in size.
    static func named(_ top: [Influence]) -> [String] {
        let named = top.enumerated().filter { $0.offset == 0 || abs($0.element.correlation) >= Sensitivity.namedCorrelation }
        return named.isEmpty ? ["the ranged figures together"] : named.map(\.element.figure)
    }

    /// Both clear with the same sign, or both too close to call.
    static func sameVerdict(_ a: Difference, _ b: Difference) -> Bool {
        guard a.verdict == b.verdict else { return false }
        return a.verdict != .clearDifference || (a.value > 0) == (b.value > 0)
    }

    /// Spearman's rank correlation (Pearson's on the ranks, ties given their mean rank); `nil`
    /// when either side does not vary or there are fewer than three pairs.
    static func spearman(_ x: [Double], _ y: [Double]) -> Double? {
        guard x.count == y.count, x.count >= 3 else { return nil }
        let rx = ranks(x), ry = ranks(y)
        let n = Double(x.count)
        let mx = rx.reduce(0, +) / n, my = ry.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (a, b) in zip(rx, ry) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        guard sxx > 0, syy > 0 else { return nil }
        return sxy / (sxx * syy).squareRoot()
    }

    /// 1-based ranks, ties sharing their mean rank.
    static func ranks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let mean = Double(start + end) / 2 + 1
            for position in start...end { ranks[order[position]] = mean }
            start = end + 1
        }
        return ranks
    }
}
