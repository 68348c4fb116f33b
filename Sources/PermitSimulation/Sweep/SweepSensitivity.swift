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
        /// Whether the chosen setting is best on this draw by a clear margin: its paired 95%
        /// interval against the best other setting within the constraints lies wholly on its
        /// side of 0 (the only setting within them counts as clear). The draws meet the same
        /// users as the model's run, so a setting picked for its lucky users stays ahead on
        /// them by luck alone; only a margin beyond the users' noise counts towards "robust".
        public let clearlyBest: Bool
        /// The figures some user of this draw met, under any setting (`PolicyResult.figuresMet`).
        public let met: Set<String>
    }

    /// The uncertain figures, with the model's values and their ranges.
    public let figures: [UncertainFigure]
    /// The setting chosen on the model itself (an index of `SweepResult.runs`).
    public let chosen: Int
    /// One entry per drawn model.
    public let draws: [Draw]
    /// The fresh runs of `--confirm` on which the chosen setting was best again, and how many
    /// there were (0: not confirmed on fresh users).
    public var confirmed: (staysBest: Int, runs: Int) = (0, 0)

    /// Draws on which the chosen setting is best by a clear margin.
    public var clearlyBest: Int { draws.filter(\.clearlyBest).count }

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
        let met = draws.reduce(into: Set<String>()) { $0.formUnion($1.met) }
        return SensitivityResult.mostSensitive(
            figures: figures.filter { met.contains($0.name) }, drawn: draws.map(\.values), all: figures,
            outcome: draws.map { $0.margin ?? lowest })
    }

    /// Robust: best by a clear margin on at least `Sensitivity.robustShare` of at least
    /// `Sensitivity.minimumDrawsForRobust` draws, and best again on every fresh run of
    /// `--confirm` (there were some). Staying best on draws that reuse the model's users is not
    /// enough: among settings of equal worth, the one picked for its lucky users stays ahead on
    /// them whatever the model.
    public var isRobust: Bool {
        draws.count >= Sensitivity.minimumDrawsForRobust && Double(clearlyBest) >= Sensitivity.robustShare * Double(draws.count)
            && confirmed.runs > 0 && confirmed.staysBest == confirmed.runs
    }

    /// The verdict, in the words of the policy comparison's sensitivity.
    public var verdict: String {
        if isRobust {
            return "the best on this model and by a clear margin on \(clearlyBest) of \(draws.count) drawn models, "
                + "confirmed on fresh users: robust to the assumptions"
        }
        let margin = "best by a clear margin on \(clearlyBest) of \(draws.count) drawn models"
        if Double(clearlyBest) >= Sensitivity.robustShare * Double(draws.count) {
            if draws.count < Sensitivity.minimumDrawsForRobust {
                return "the best on this model, \(margin): too few drawn models to call it robust "
                    + "(robust needs \(Sensitivity.minimumDrawsForRobust) or more: --sensitivity \(Sensitivity.minimumDrawsForRobust))"
            }
            return confirmed.runs == 0
                ? "the best on this model, \(margin), but not confirmed on fresh users (--confirm 0): not called robust"
                : "the best on this model, \(margin), but best again on only \(confirmed.staysBest) of \(confirmed.runs) "
                    + "fresh runs: not called robust"
        }
        return "the best on this model, \(margin): depends on assumptions or on the users' noise "
            + "(\(SensitivityResult.named(mostSensitive).joined(separator: ", ")))"
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
            let result = await Simulation.run(policies: variants, model: drawnModel, options: options, pairedDays: [objective.day]) {
                done, total in
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
        let best = sweep.bestFeasible(in: results, on: objective)
        var clearly = false
        if best == chosen {
            let rivals = within.filter { $0 != chosen }
            if let rival = rivals.max(by: { sign * share($0) < sign * share($1) }) {
                let interval = results[chosen].pairedDifference(objective.reach, day: objective.day, from: results[rival]).interval
                clearly = objective.higherIsBetter ? interval.low > 0 : interval.high < 0
            } else {
                clearly = true
            }
        }
        let met = results.reduce(into: Set<String>()) { $0.formUnion($1.figuresMet) }
        return Draw(values: values, best: best, share: share(chosen), margin: margin, clearlyBest: clearly, met: met)
    }
}
