import Foundation
import PermitCore

/// One swept param and the values it takes (`--sweep max_soft_prompts=1,2,3`).
public struct SweepAxis: Sendable, Hashable {
    /// The param's name, declared by the policy.
    public let param: String
    /// Its values, in the order given.
    public let values: [PolicyValue]

    /// An axis.
    public init(param: String, values: [PolicyValue]) {
        self.param = param
        self.values = values
    }
}

/// Runs one policy over a grid of params and finds the best feasible setting.
///
/// Every combination is the same policy with other params, run as one more policy of a single
/// `Simulation.run`: the same worker pool, the same seed and so the same simulated users for
/// every combination, and a result that does not depend on scheduling.
public enum Sweep {
    /// The most combinations a sweep runs (each is a full simulation).
    public static let maxCombinations = 64

    /// The cartesian product of the axes, the first axis varying slowest; each combination is
    /// the params in axis order.
    public static func grid(_ axes: [SweepAxis]) -> [[(String, PolicyValue)]] {
        axes.reduce([[]]) { partial, axis in
            partial.flatMap { combination in axis.values.map { combination + [(axis.param, $0)] } }
        }
    }

    /// Runs every combination of `axes` (at most `maxCombinations`; the caller checks) through
    /// `policy`, each on the same users; then, when an objective picks a best setting, the grid
    /// again on `confirmations` fresh seeds (new users), so that the chosen setting's figure is
    /// measured where it was not selected (`SweepResult.Confirmation`); and on `sensitivity`
    /// drawn models (same users and seed), so that the report says how often the choice stays
    /// best when the model's assumptions change (`SweepSensitivity`).
    public static func run(
        policy: SimulationPolicy, axes: [SweepAxis], model: UserModel, options: SimulationOptions,
        objective: SweepMetric?, constraints: [SweepConstraint], confirmations: Int = 0, sensitivity: Int = 0,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(PolicyError) -> SweepResult {
        let combinations = grid(axes)
        var variants: [SimulationPolicy] = []
        for combination in combinations {
            var params = policy.params
            for (key, value) in combination { params[key] = value }
            variants.append(try policy.with(params: params))
        }
        // Progress counts the fresh runs and the drawn models too: (1 + confirmations + draws) grids.
        let draws = objective == nil ? 0 : max(0, sensitivity)
        let grids = 1 + (objective == nil ? 0 : max(0, confirmations)) + draws
        // The objective's day is kept per user too, so the runner-up difference is paired.
        let days = SimulationResult.reportedDays(days: options.days) + [objective].compactMap { $0?.day }
        let result = await Simulation.run(policies: variants, model: model, options: options, pairedDays: days) {
            done, total in progress?(done, total * grids)
        }
        let runs = zip(combinations, result.policies).map { SweepResult.Run(params: $0.0, result: $0.1) }
        var sweep = SweepResult(
            simulation: result, axes: axes.map(\.param), runs: runs, objective: objective, constraints: constraints)
        guard sweep.choice != nil else { return sweep }
        for index in 0..<(grids - 1 - draws) {
            var fresh = options
            fresh.seed = SweepResult.confirmationSeed(options.seed, index: index)
            let again = await Simulation.run(policies: variants, model: model, options: fresh) { done, total in
                progress?(total * (index + 1) + done, total * grids)
            }
            sweep.confirmations.append(SweepResult.Confirmation.Run(seed: fresh.seed, results: again.policies))
        }
        let before = grids - draws
        sweep.sensitivity = await SweepSensitivity.run(
            sweep: sweep, variants: variants, model: model, options: options, draws: draws
        ) { done, total in progress?(total / max(1, draws) * before + done, total / max(1, draws) * grids) }
        return sweep
    }
}
