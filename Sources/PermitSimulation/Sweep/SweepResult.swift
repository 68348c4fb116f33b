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

    /// The best feasible run and how sure the choice is, on the objective and on the constraints.
    public struct Choice: Sendable {
        /// Index of the best run in `runs`.
        public let best: Int
        /// Index of the second-best feasible run, if there is one.
        public let runnerUp: Int?
        /// Best minus runner-up on the objective, with its interval and verdict.
        public let difference: Difference?
        /// How sure it is that the best meets every constraint (`meets` without constraints).
        public let constraints: SweepConstraint.Status
        /// When the best only may meet the constraints: the best run that surely meets them, if any.
        public let surelyMeeting: Int?
        /// Best minus `surelyMeeting` on the objective: what the surer choice costs.
        public let surelyMeetingDifference: Difference?
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
    /// The grid run again on fresh seeds (new users), each aligned with `runs`, to confirm the
    /// choice without the selection's bias (`SweepResult+Confirmation`); empty without
    /// `--objective` or with `--confirm 0`.
    public var confirmations: [Confirmation.Run] = []
    /// How often the choice stays best on models drawn from the model's ranges
    /// (`SweepSensitivity`); `nil` without `--objective`, a choice or `--sensitivity`.
    public var sensitivity: SweepSensitivity?

    /// Whether `run`'s shares are within every constraint (it meets or may meet them all).
    public func isFeasible(_ run: Run) -> Bool { status(of: run) != .breaks }

    /// How sure it is that `run` meets every constraint: the least sure of them.
    public func status(of run: Run) -> SweepConstraint.Status {
        constraints.map { $0.status(of: run.result) }.max() ?? .meets
    }

    /// The best feasible run on the objective (ties go to the earlier combination), or `nil`
    /// without an objective or when no run is feasible. Settings are ranked on their shares;
    /// how sure the pick is comes with it: the runner-up difference, whether the best surely
    /// meets the constraints, and if it only may, the best setting that surely does.
    public var choice: Choice? {
        guard let objective else { return nil }
        let ranked = rank(runs.indices.filter { isFeasible(runs[$0]) }, on: objective)
        guard let best = ranked.first else { return nil }
        let runnerUp = ranked.dropFirst().first
        let constraints = status(of: runs[best])
        let surelyMeeting = constraints == .meets ? nil : ranked.first { status(of: runs[$0]) == .meets }
        return Choice(
            best: best, runnerUp: runnerUp, difference: runnerUp.map { difference(best, minus: $0, on: objective) },
            constraints: constraints, surelyMeeting: surelyMeeting,
            surelyMeetingDifference: surelyMeeting.map { difference(best, minus: $0, on: objective) })
    }

    /// `indices` best first on `objective`; ties keep the earlier combination first.
    private func rank(_ indices: [Int], on objective: SweepMetric) -> [Int] {
        indices.sorted { a, b in
            let (ca, cb) = (objective.count(in: runs[a].result), objective.count(in: runs[b].result))
            guard ca != cb else { return a < b }
            return objective.higherIsBetter ? ca > cb : ca < cb
        }
    }

    /// Run `a` minus run `b` on `metric`, paired user by user (every setting met the same
    /// users; `Confidence.paired`).
    private func difference(_ a: Int, minus b: Int, on metric: SweepMetric) -> Difference {
        runs[a].result.pairedDifference(metric.reach, day: metric.day, from: runs[b].result)
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
