import Foundation
import PermitCore

extension SweepResult {
    /// A table with one row per combination (its params, each figure with its 95% interval,
    /// `*` on the best feasible row, `x` on rows breaking a constraint), then the choice.
    public func text() -> String {
        let metrics = columns
        let header = axes + metrics.map(\.description)
        let choice = self.choice
        var rows: [[String]] = runs.enumerated().map { index, run in
            run.params.map { Self.valueText($0.1) } + metrics.map { metric in
                let (value, interval) = metric.share(in: run.result)
                return String(format: "%.1f%% [%.1f, %.1f]", value * 100, interval.low * 100, interval.high * 100)
            } + [index == choice?.best ? "*" : isFeasible(run) ? "" : "x"]
        }
        rows.insert(header + [""], at: 0)
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = [
            "sweep of \(simulation.policies.first.map { $0.file } ?? "") over \(axes.joined(separator: ", ")): "
                + "\(runs.count) settings × \(simulation.users) users × \(simulation.days) days, "
                + "model \(simulation.model), seed \(simulation.seed) (every setting meets the same users)", "",
        ]
        for row in rows {
            let cells = header.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            lines.append((cells.joined(separator: "  ") + "  " + row[header.count]).trimmingCharacters(in: .whitespaces))
        }
        lines.append("")
        lines += choiceLines(choice)
        return lines.joined(separator: "\n")
    }

    /// What the sweep chose and how sure that is.
    func choiceLines(_ choice: Choice?) -> [String] {
        guard let objective else { return ["no --objective: no setting marked best"] }
        let bounds = constraints.isEmpty ? "" : " subject to " + constraints.map(\.description).joined(separator: ", ")
        guard let choice else { return ["objective \(objective)\(bounds): no setting meets the constraints"] }
        var lines = ["objective \(objective)\(bounds): best (*) " + paramsText(runs[choice.best].params)]
        if let runnerUp = choice.runnerUp, let difference = choice.difference {
            lines.append(String(
                format: "  vs runner-up %@: %+.1f pp [%+.1f, %+.1f] ", paramsText(runs[runnerUp].params),
                difference.value * 100, difference.interval.low * 100, difference.interval.high * 100)
                + difference.verdict.rawValue)
        } else {
            lines.append("  the only setting that meets the constraints")
        }
        return lines
    }

    func paramsText(_ params: [(String, PolicyValue)]) -> String {
        params.map { "\($0.0)=\(Self.valueText($0.1))" }.joined(separator: " ")
    }

    /// The same as JSON: the runs with their params and every figure with `share` and `ci95`,
    /// and the choice with the runner-up difference and verdict.
    public func json() -> String {
        let round = SimulationResult.rounded
        let runs: [PolicyValue] = self.runs.enumerated().map { index, run in
            var figures: [String: PolicyValue] = [:]
            for metric in columns {
                let (value, interval) = metric.share(in: run.result)
                figures[metric.description] = .table(["share": round(value), "ci95": .list([round(interval.low), round(interval.high)])])
            }
            return .table([
                "params": .table(Dictionary(run.params, uniquingKeysWith: { $1 })),
                "metrics": .table(figures), "feasible": .bool(isFeasible(run)),
            ])
        }
        var sweep: [String: PolicyValue] = [
            "model": .string(simulation.model), "users": .integer(Int64(simulation.users)),
            "days": .integer(Int64(simulation.days)), "seed": .string(String(simulation.seed)),
            "params": .list(axes.map { .string($0) }), "runs": .list(runs),
            "constraints": .list(constraints.map { .string($0.description) }),
            "warnings": .list(simulation.warnings.map { .table(["policy": .string($0.policy), "message": .string($0.message)]) }),
        ]
        if let objective { sweep["objective"] = .string(objective.description) }
        if let choice {
            var best: [String: PolicyValue] = ["index": .integer(Int64(choice.best)),
                                               "params": .table(Dictionary(self.runs[choice.best].params, uniquingKeysWith: { $1 }))]
            if let runnerUp = choice.runnerUp, let difference = choice.difference {
                best["runner_up"] = .table(Dictionary(self.runs[runnerUp].params, uniquingKeysWith: { $1 }))
                best["difference"] = round(difference.value)
                best["ci95"] = .list([round(difference.interval.low), round(difference.interval.high)])
                best["verdict"] = .string(difference.verdict.rawValue)
            }
            sweep["best"] = .table(best)
        }
        return PolicyValue.table(["sweep": .table(sweep)]).prettyJSON
    }
}
