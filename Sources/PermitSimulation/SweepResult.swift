import Foundation
import PermitCore

/// A sweep's runs, one per combination of params, and its best feasible setting with how sure
/// that is: the difference from the runner-up on the objective, its interval and verdict.
public struct SweepResult: Sendable {
    /// One combination and what it gave.
    public struct Run: Sendable {
        /// The swept params, in axis order.
        public let params: [(String, PolicyValue)]
        /// The combination's result, on the same users as every other combination.
        public let result: PolicyResult
    }

    /// The best feasible run and how sure the choice is.
    public struct Choice: Sendable {
        /// Index of the best run in `runs`.
        public let best: Int
        /// Index of the second-best feasible run, if there is one.
        public let runnerUp: Int?
        /// Best minus runner-up on the objective, with its interval and verdict.
        public let difference: Difference?
    }

    /// The whole simulation (model, users, days, seed, warnings).
    public let simulation: SimulationResult
    /// The swept params' names, in axis order.
    public let axes: [String]
    /// One run per combination, first axis varying slowest.
    public let runs: [Run]
    /// The figure to optimise, if one was chosen.
    public let objective: SweepMetric?
    /// Bounds the best setting must meet.
    public let constraints: [SweepConstraint]

    /// Whether `run` meets every constraint.
    public func isFeasible(_ run: Run) -> Bool { constraints.allSatisfy { $0.isMet(by: run.result) } }

    /// The best feasible run on the objective (ties go to the earlier combination), or `nil`
    /// without an objective or when no run is feasible.
    public var choice: Choice? {
        guard let objective else { return nil }
        let ranked = runs.indices.filter { isFeasible(runs[$0]) }.sorted { a, b in
            let (ca, cb) = (objective.count(in: runs[a].result), objective.count(in: runs[b].result))
            guard ca != cb else { return a < b }
            return objective.higherIsBetter ? ca > cb : ca < cb
        }
        guard let best = ranked.first else { return nil }
        let runnerUp = ranked.dropFirst().first
        let difference = runnerUp.map { other in
            Confidence.difference(
                (objective.count(in: runs[best].result), runs[best].result.users),
                minus: (objective.count(in: runs[other].result), runs[other].result.users))
        }
        return Choice(best: best, runnerUp: runnerUp, difference: difference)
    }

    /// The figures each row shows: the headline and quiet reach on the last day, uninstalls,
    /// then the objective and constraint metrics if they are others.
    public var columns: [SweepMetric] {
        let days = simulation.days
        var metrics = ["reach_day_\(days)", "quiet_day_\(days)", "uninstalls"].compactMap { SweepMetric(name: $0, days: days) }
        for metric in [objective].compactMap({ $0 }) + constraints.map(\.metric) where !metrics.contains(metric) {
            metrics.append(metric)
        }
        return metrics
    }

    /// `[1, 7, 30]` for a list, as the command line takes it.
    static func valueText(_ value: PolicyValue) -> String {
        switch value {
        case .list, .table: (try? String(data: JSONEncoder().encode(value), encoding: .utf8)) ?? value.description
        case .string(let text): text
        default: value.description
        }
    }
}
