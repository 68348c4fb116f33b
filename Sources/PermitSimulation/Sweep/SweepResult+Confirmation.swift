import Foundation
import PermitCore

extension SweepResult {
    /// The chosen setting measured again on users the choice never saw.
    ///
    /// Why: picking the best of several settings on one run picks, among settings of equal
    /// worth, the one whose users happened to do best, so the winner's own figure is biased up
    /// and its interval covers the truth less often than it says (the winner's curse). The grid
    /// runs again on fresh seeds; there the chosen setting was not selected, so its pooled
    /// figure is an honest estimate with an honest interval, its constraints are judged on users
    /// no choice was made on (no correction for the number of settings needed), and how often
    /// it is best again on each fresh run says how sure the choice is.
    public struct Confirmation: Sendable {
        /// One fresh run of the grid.
        public struct Run: Sendable {
            /// Its seed.
            public let seed: UInt64
            /// One result per setting, in the order of `SweepResult.runs`.
            public let results: [PolicyResult]
        }

        /// The fresh runs' seeds.
        public let seeds: [UInt64]
        /// The users the estimate pools: the chosen setting's users over every fresh run.
        public let users: Int
        /// The chosen setting's objective share over the fresh runs, with its 95% Wilson interval.
        public let share: Double
        /// The interval of `share`.
        public let interval: Interval
        /// The fresh runs on which the chosen setting is the best feasible one again.
        public let staysBest: Int
        /// How sure it is, on the fresh users, that the chosen setting meets every constraint.
        public let constraints: SweepConstraint.Status
        /// Each constraint's share and interval for the chosen setting on the fresh users.
        public let constraintShares: [(constraint: SweepConstraint, share: Double, interval: Interval)]
    }

    /// The seed of the `index`-th fresh run: a stream of its own off the sweep's seed, so a
    /// seed gives the same confirmation whatever the workers.
    public static func confirmationSeed(_ seed: UInt64, index: Int) -> UInt64 {
        var stream = SplitMix64.stream(seed: seed ^ 0xC0F1_4A7E, index: UInt64(index))
        return stream.next()
    }

    /// The choice confirmed on the fresh runs; `nil` without a choice or fresh runs.
    public var confirmation: Confirmation? {
        guard let objective, let choice, !confirmations.isEmpty else { return nil }
        let chosen = confirmations.map { $0.results[choice.best] }
        let users = chosen.reduce(0) { $0 + $1.users }
        func pooled(_ metric: SweepMetric) -> (Double, Interval) {
            let count = chosen.reduce(0) { $0 + metric.count(in: $1) }
            return (Double(count) / Double(max(1, users)), Confidence.wilson(successes: count, of: users))
        }
        let (share, interval) = pooled(objective)
        let staysBest = confirmations.filter { run in
            bestFeasible(in: run.results, on: objective) == choice.best
        }.count
        let shares = constraints.map { bound in
            let (value, interval) = pooled(bound.metric)
            return (constraint: bound, share: value, interval: interval)
        }
        return Confirmation(
            seeds: confirmations.map(\.seed), users: users, share: share, interval: interval, staysBest: staysBest,
            constraints: shares.map { $0.constraint.status(share: $0.share, interval: $0.interval) }.max() ?? .meets,
            constraintShares: shares)
    }

    /// The best setting among those within every constraint on `results` (ties: the earlier).
    func bestFeasible(in results: [PolicyResult], on objective: SweepMetric) -> Int? {
        let feasible = results.indices.filter { index in constraints.allSatisfy { $0.isMet(by: results[index]) } }
        return feasible.min { a, b in
            let (ca, cb) = (objective.count(in: results[a]), objective.count(in: results[b]))
            guard ca != cb else { return a < b }
            return objective.higherIsBetter ? ca > cb : ca < cb
        }
    }

    /// The confirmation as lines of text, under the choice.
    func confirmationLines() -> [String] {
        guard let confirmation, let choice, let objective else { return [] }
        let own = objective.share(in: runs[choice.best].result).value
        var lines = [
            String(
                format:
                    "  confirmed on %d fresh seed%@ (%d new users): %@ %.1f%% [%.1f, %.1f]; the sweep's own %.1f%% won among %d and tends to run high",
                confirmation.seeds.count, confirmation.seeds.count == 1 ? "" : "s", confirmation.users,
                objective.description, confirmation.share * 100, confirmation.interval.low * 100,
                confirmation.interval.high * 100, own * 100, runs.count),
            "  best again on \(confirmation.staysBest) of \(confirmation.seeds.count) fresh run"
                + (confirmation.seeds.count == 1 ? "" : "s"),
        ]
        if !constraints.isEmpty {
            let figures = confirmation.constraintShares.map {
                String(
                    format: "%@ %.1f%% [%.1f, %.1f]", $0.constraint.metric.description, $0.share * 100, $0.interval.low * 100,
                    $0.interval.high * 100)
            }.joined(separator: ", ")
            lines.append("  on the fresh users it \(confirmation.constraints.rawValue) the constraints (\(figures))")
        }
        return lines
    }

    /// The confirmation as JSON.
    func confirmationJSON() -> PolicyValue? {
        guard let confirmation else { return nil }
        let round = SimulationResult.rounded
        return .table([
            "seeds": .list(confirmation.seeds.map { .string(String($0)) }),
            "users": .integer(Int64(confirmation.users)),
            "share": round(confirmation.share),
            "ci95": .list([round(confirmation.interval.low), round(confirmation.interval.high)]),
            "stays_best": .integer(Int64(confirmation.staysBest)),
            "constraints": .string(confirmation.constraints.rawValue),
        ])
    }
}
