import Foundation
import PermitCore

/// `permit simulate --sweep ... --objective M --sensitivity N`: how often the sweep's chosen
/// setting stays the best across N models drawn from the ranges of the model's uncertain figures.
///
/// Why: `--confirm` says whether the choice survives fresh users on this model; it cannot say
/// whether the choice hangs on an unsourced assumption. Each draw sets every ranged figure
/// within its range (`UserModel.drawn`, the draws of the policy comparison) and runs the same
/// grid with the same users, days and seed, so only the model changes between draws and the
/// result is the same whatever the workers. Per draw it keeps which setting is best within the
/// constraints, the chosen setting's objective share and its margin over the best other setting;
/// the figures the margin follows most are the ones the choice depends on.
public struct SweepSensitivity: Sendable {
    /// What one drawn model gave.
    public struct Draw: Sendable {
        /// The drawn value of each uncertain figure, in `figures`' order.
        public let values: [Double]
        /// The best setting within the constraints on this draw (an index of `SweepResult.runs`),
        /// `nil` when no setting is within them.
        public let best: Int?
        /// The chosen setting's objective share on this draw.
        public let share: Double
        /// The chosen setting's objective minus the best other setting's within the constraints
        /// (signed so that + means the chosen is ahead, also for a metric to minimise); `nil`
        /// when the chosen setting breaks a constraint on this draw, ranked below every margin.
        public let margin: Double?
    }

    /// The uncertain figures, with the model's values and their ranges.
    public let figures: [UncertainFigure]
    /// The setting chosen on the model itself (an index of `SweepResult.runs`).
    public let chosen: Int
    /// One entry per drawn model.
    public let draws: [Draw]

    /// Draws on which the chosen setting is the best within the constraints.
    public var staysBest: Int { draws.filter { $0.best == chosen }.count }

    /// The settings best on some draw with how many draws each (`nil`: no setting within the
    /// constraints), most first, ties in the grid's order.
    public var winners: [(setting: Int?, count: Int)] {
        var counts: [Int?: Int] = [:]
        for draw in draws { counts[draw.best, default: 0] += 1 }
        return counts.map { (setting: $0.key, count: $0.value) }.sorted { a, b in
            a.count != b.count ? a.count > b.count : (a.setting ?? Int.max) < (b.setting ?? Int.max)
        }
    }

    /// The chosen setting's objective share over the draws, lowest to highest.
    public var shareRange: ClosedRange<Double> {
        let shares = draws.map(\.share)
        return (shares.min() ?? 0)...(shares.max() ?? 0)
    }

    /// The figures the chosen setting's margin follows most, strongest first (at most
    /// `Sensitivity.namedFigures`); a + correlation means a higher value favours the choice.
    public var mostSensitive: [SensitivityResult.Influence] {
        // A draw on which the chosen setting breaks a constraint ranks below every margin.
        let lowest = (draws.compactMap(\.margin).min() ?? 0) - 1
        return SensitivityResult.mostSensitive(
            figures: figures, drawn: draws.map(\.values), outcome: draws.map { $0.margin ?? lowest })
    }

    /// Whether the choice stays best on at least `Sensitivity.robustShare` of the draws.
    public var isRobust: Bool { Double(staysBest) >= Sensitivity.robustShare * Double(draws.count) }

    /// The verdict, in the words of the policy comparison's sensitivity.
    public var verdict: String {
        isRobust
            ? "the best on this model and on \(staysBest) of \(draws.count) drawn models: robust to the assumptions"
            : "the best on this model, but depends on assumptions (\(SensitivityResult.named(mostSensitive).joined(separator: ", ")))"
    }

    /// Runs `variants` (the sweep's grid, in `sweep.runs`' order) on `draws` drawn models with
    /// `options` unchanged and summarises each against `sweep`'s choice; `nil` without a choice.
    /// `progress` gets (users done, users in all draws).
    static func run(
        sweep: SweepResult, variants: [SimulationPolicy], model: UserModel, options: SimulationOptions, draws: Int,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async -> SweepSensitivity? {
        guard let objective = sweep.objective, let chosen = sweep.choice?.best, draws > 0 else { return nil }
        var drawn: [Draw] = []
        for index in 0..<draws {
            let (drawnModel, values) = model.drawn(at: index, seed: options.seed)
            let result = await Simulation.run(policies: variants, model: drawnModel, options: options) { done, total in
                progress?(total * index + done, total * draws)
            }
            drawn.append(Self.draw(values: values, results: result.policies, chosen: chosen, sweep: sweep, objective: objective))
        }
        return SweepSensitivity(figures: model.uncertainFigures, chosen: chosen, draws: drawn)
    }

    /// One draw's summary: the best setting within the constraints, the chosen one's share and margin.
    static func draw(values: [Double], results: [PolicyResult], chosen: Int, sweep: SweepResult, objective: SweepMetric) -> Draw {
        let sign = objective.higherIsBetter ? 1.0 : -1.0
        func share(_ index: Int) -> Double { objective.share(in: results[index]).value }
        let within = results.indices.filter { index in sweep.constraints.allSatisfy { $0.isMet(by: results[index]) } }
        let others = within.filter { $0 != chosen }.map { sign * share($0) }
        let margin: Double? =
            within.contains(chosen) ? sign * share(chosen) - (others.max() ?? sign * share(chosen)) : nil
        return Draw(values: values, best: sweep.bestFeasible(in: results, on: objective), share: share(chosen), margin: margin)
    }
}
