import Foundation
import PermitCore

extension SweepResult {
    /// A table with one row per combination (its params, each figure with its 95% interval,
    /// with constraints whether it meets them: `meets`, `may meet` or `breaks`, one column per
    /// constraint when there are several, and `*` on the best row), then the choice.
    public func text() -> String {
        let rows = tableRows()
        let header = Array(rows[0].dropLast())
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = [
            "sweep of \(simulation.policies.first.map { $0.file } ?? "") over \(axes.joined(separator: ", ")): "
                + "\(runs.count) settings × \(simulation.users) users × \(simulation.days) days, "
                + "model \(simulation.model), seed \(simulation.seed) (every setting meets the same users)",
            "95% intervals; they cover \(SimulationResult.coverage); differences between settings are paired user by user",
            "",
        ]
        for row in rows {
            let cells = header.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            lines.append((cells.joined(separator: "  ") + "  " + row[header.count]).trimmingCharacters(in: .whitespaces))
        }
        lines.append("")
        lines += choiceLines(choice)
        return lines.joined(separator: "\n")
    }

    /// The table's rows, header first: per setting its params, each figure with its 95%
    /// interval, the constraint columns, and `*` on the best (the last column, headed "").
    func tableRows() -> [[String]] {
        let metrics = columns
        let header = axes + metrics.map(\.description) + constraintColumns
        let best = choice?.best
        let rows: [[String]] = runs.enumerated().map { index, run in
            run.params.map { Self.valueText($0.1) }
                + metrics.map { metric in
                    let (value, interval) = metric.share(in: run.result)
                    return String(format: "%.1f%% [%.1f, %.1f]", value * 100, interval.low * 100, interval.high * 100)
                } + constraintCells(run) + [index == best ? "*" : ""]
        }
        return [header + [""]] + rows
    }

    /// What the sweep chose and how sure that is.
    func choiceLines(_ choice: Choice?) -> [String] {
        guard let objective else { return ["no --objective: no setting marked best"] }
        let bounds = constraints.isEmpty ? "" : " subject to " + constraints.map(\.description).joined(separator: ", ")
        guard let choice else { return ["objective \(objective)\(bounds): no setting meets the constraints"] }
        var lines = ["objective \(objective)\(bounds): best (*) " + paramsText(runs[choice.best].params)]
        if let runnerUp = choice.runnerUp, let difference = choice.difference {
            lines.append(
                String(
                    format: "  vs runner-up %@: %+.1f pp [%+.1f, %+.1f] ", paramsText(runs[runnerUp].params),
                    difference.value * 100, difference.interval.low * 100, difference.interval.high * 100)
                    + difference.words)
        } else {
            lines.append("  the only setting that meets the constraints")
        }
        return lines + constraintLines(choice) + confirmationLines() + sensitivityLines()
    }

    /// How sure it is that the best meets the constraints, and what a surer setting costs.
    func constraintLines(_ choice: Choice) -> [String] {
        guard !constraints.isEmpty else { return [] }
        let best = runs[choice.best].result
        let figures = constraints.map { bound in
            let (value, interval) = bound.metric.share(in: best)
            return String(
                format: "%@ %.1f%% [%.1f, %.1f]", bound.metric.description, value * 100, interval.low * 100,
                interval.high * 100)
        }.joined(separator: ", ")
        guard choice.constraints == .mayMeet else {
            return ["  meets the constraints: every 95% interval is within its bound (\(figures))"]
        }
        var lines = [
            "  may meet the constraints: its share is within each bound but an interval crosses one (\(figures)); "
                + "more users (--users, --precision) narrow the intervals"
        ]
        if let safer = choice.surelyMeeting, let difference = choice.surelyMeetingDifference {
            lines.append(
                String(
                    format: "  the best setting that surely meets them: %@ (%@ %+.1f pp [%+.1f, %+.1f] against the best's, %@)",
                    paramsText(runs[safer].params), objective?.description ?? "", -difference.value * 100,
                    -difference.interval.high * 100, -difference.interval.low * 100, difference.words))
        } else {
            lines.append("  no setting surely meets them")
        }
        return lines
    }

    func paramsText(_ params: [(String, PolicyValue)]) -> String {
        params.map { "\($0.0)=\(Self.valueText($0.1))" }.joined(separator: " ")
    }

    /// The constraint columns' headers: one per bound when there are several (a setting's
    /// overall status alone would not say which bound it breaks), then the overall status.
    private var constraintColumns: [String] {
        constraints.isEmpty ? [] : (constraints.count > 1 ? constraints.map(\.description) : []) + ["constraints"]
    }

    /// `run`'s cells under `constraintColumns`.
    private func constraintCells(_ run: Run) -> [String] {
        guard !constraints.isEmpty else { return [] }
        let each = constraints.count > 1 ? constraints.map { $0.status(of: run.result).rawValue } : []
        return each + [status(of: run).rawValue]
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
                "constraints": .string(status(of: run).rawValue),
                "by_constraint": .list(
                    constraints.map { bound in
                        .table(["constraint": .string(bound.description), "status": .string(bound.status(of: run.result).rawValue)])
                    }),
            ])
        }
        var sweep: [String: PolicyValue] = [
            "model": .string(simulation.model), "users": .integer(Int64(simulation.users)),
            "days": .integer(Int64(simulation.days)), "seed": .string(String(simulation.seed)),
            "params": .list(axes.map { .string($0) }), "runs": .list(runs),
            "constraints": .list(
                constraints.map { bound in
                    .table([
                        "constraint": .string(bound.description), "metric": .string(bound.metric.description),
                        "bound": round(bound.bound), "at_most": .bool(bound.atMost),
                    ])
                }),
            "warnings": .list(simulation.warnings.map { .table(["policy": .string($0.policy), "message": .string($0.message)]) }),
            "intervals": .table([
                "level": .number(1 - Confidence.alpha), "cover": .string(SimulationResult.coverage),
                "differences": .string("paired user by user (Newcombe 1998, paired data, method 10)"),
                "family_wise": .string(
                    "uncorrected: the best-vs-runner-up verdict is one comparison, not corrected for picking the best"),
            ]),
        ]
        if let objective { sweep["objective"] = .string(objective.description) }
        if let choice {
            var best: [String: PolicyValue] = [
                "index": .integer(Int64(choice.best)),
                "params": .table(Dictionary(self.runs[choice.best].params, uniquingKeysWith: { $1 })),
            ]
            if let runnerUp = choice.runnerUp, let difference = choice.difference {
                best["runner_up"] = .table(Dictionary(self.runs[runnerUp].params, uniquingKeysWith: { $1 }))
                best["difference"] = round(difference.value)
                best["ci95"] = .list([round(difference.interval.low), round(difference.interval.high)])
                best["verdict"] = .string(difference.words)
                best["paired"] = .bool(difference.paired)
                best["p_value"] = round(difference.pValue)
            }
            best["constraints"] = .string(choice.constraints.rawValue)
            if let safer = choice.surelyMeeting, let difference = choice.surelyMeetingDifference {
                best["surely_meeting"] = .table([
                    "params": .table(Dictionary(self.runs[safer].params, uniquingKeysWith: { $1 })),
                    "difference": round(difference.value),
                    "ci95": .list([round(difference.interval.low), round(difference.interval.high)]),
                    "verdict": .string(difference.words),
                ])
            }
            if let confirmed = confirmationJSON() { best["confirmation"] = confirmed }
            if let drawn = sensitivityJSON() { best["sensitivity"] = drawn }
            sweep["best"] = .table(best)
        }
        return PolicyValue.table(["sweep": .table(sweep)]).prettyJSON
    }
}
