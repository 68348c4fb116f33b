import Foundation
import PermitCore

extension SensitivityResult {
    /// `+5.3 pp`.
    static func points(_ value: Double) -> String { String(format: "%+.1f pp", value * 100) }

    /// How a figure goes with the difference: `provisional.turn_off (ρ −0.81: higher favours polite)`.
    func influenceText(_ influence: Influence, _ comparison: Comparison) -> String {
        let favours = influence.correlation > 0 ? comparison.policy : comparison.versus
        return String(format: "%@ (ρ %+.2f: higher favours %@)", influence.figure, influence.correlation, favours)
    }

    /// The section printed after the comparison table.
    public func text() -> String {
        let ranged = figures.filter { $0.range.lowerBound < $0.range.upperBound }
        let defaults = ranged.filter(\.isDefaultRange).count
        var lines = [
            "",
            "sensitivity to the model: \(draws.count) models drawn from the ranges of \(ranged.count) uncertain figures "
                + "(\(defaults) with their default range), each uniform in its range; the same policies, users and seed.",
            "The 95% intervals above cover only the randomness of the simulated users on this model; the draws cover the",
            "model's assumptions. \"can receive alerts\", day \(day), against \(comparisons.first?.versus ?? "the first policy"):",
        ]
        for comparison in comparisons {
            let range = comparison.differenceRange
            lines.append(
                "  \(comparison.policy): \(Self.points(comparison.base.value)) on this model (\(comparison.base.verdict.rawValue)); "
                    + "the same verdict in \(comparison.holds) of \(comparison.drawn.count) draws; "
                    + "difference \(Self.points(range.lowerBound)) to \(Self.points(range.upperBound))")
            if !comparison.mostSensitive.isEmpty {
                lines.append(
                    "    most sensitive to: " + comparison.mostSensitive.map { influenceText($0, comparison) }.joined(separator: ", "))
            }
            lines.append("    verdict: \(comparison.headline)")
        }
        if !leftOut.isEmpty {
            lines.append(
                "  not varied: the model says nothing about " + leftOut.map { "`\($0)`" }.joined(separator: ", ")
                    + "; every draw keeps the fixed default (see the warnings), and every verdict above assumes it")
        }
        lines.append("  uncertain figures (value [range]; * the default range of an assumption, docs/reference/model.md#model-ranges):")
        let width = figures.map(\.name.count).max() ?? 0
        for figure in figures {
            lines.append(
                "    " + figure.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(format: "  %g [%g, %g]", figure.value, figure.range.lowerBound, figure.range.upperBound)
                    + (figure.isDefaultRange ? " *" : ""))
        }
        return lines.joined(separator: "\n")
    }

    /// The `sensitivity` object of the JSON: the figures, per comparison the model's verdict,
    /// how many draws hold it, the range, the most sensitive figures and the verdict with the
    /// assumptions, and per draw the drawn figures and differences.
    public func jsonValue() -> PolicyValue {
        let round = SimulationResult.rounded
        func difference(_ d: Difference) -> [String: PolicyValue] {
            [
                "difference": round(d.value), "ci95": .list([round(d.interval.low), round(d.interval.high)]),
                "verdict": .string(d.words),
            ]
        }
        let comparisons: [PolicyValue] = comparisons.map { comparison in
            var fields = difference(comparison.base)
            fields["policy"] = .string(comparison.policy)
            fields["versus"] = .string(comparison.versus)
            fields["holds"] = .integer(Int64(comparison.holds))
            fields["flips"] = .integer(Int64(comparison.flips))
            fields["difference_range"] = .list([round(comparison.differenceRange.lowerBound), round(comparison.differenceRange.upperBound)])
            fields["most_sensitive"] = .list(
                comparison.mostSensitive.map { influence in
                    .table([
                        "figure": .string(influence.figure), "spearman": round(influence.correlation),
                        "higher_favours": .string(influence.correlation > 0 ? comparison.policy : comparison.versus),
                    ])
                })
            fields["sensitivity_verdict"] = .string(comparison.headline.description)
            if case .flips(let ahead, let draws, let other, let otherDraws, _) = comparison.headline {
                fields["clear_draws_each_way"] = .table([ahead: .integer(Int64(draws)), other: .integer(Int64(otherDraws))])
            }
            return .table(fields)
        }
        let drawn: [PolicyValue] = draws.enumerated().map { index, draw in
            var values: [String: PolicyValue] = [:]
            for (figure, value) in zip(figures, draw.values) { values[figure.name] = round(value) }
            var differences: [String: PolicyValue] = [:]
            for comparison in self.comparisons {
                differences[comparison.policy] = .table(difference(comparison.drawn[index]))
            }
            return .table(["figures": .table(values), "can_receive_alerts_vs_first": .table(differences)])
        }
        return .table([
            "draws": .integer(Int64(draws.count)),
            "metric": .string("can_receive_alerts.day_\(day)"),
            "robust_share": round(Sensitivity.robustShare),
            "minimum_draws_for_robust": .integer(Int64(Sensitivity.minimumDrawsForRobust)),
            "not_varied": .list(leftOut.map { .string($0) }),
            "figures": .list(
                figures.map { figure in
                    .table([
                        "name": .string(figure.name), "value": round(figure.value),
                        "range": .list([round(figure.range.lowerBound), round(figure.range.upperBound)]),
                        "default_range": .bool(figure.isDefaultRange),
                    ])
                }),
            "comparisons": .list(comparisons),
            "models": .list(drawn),
        ])
    }

    /// The rows an HTML report shows, a header first: per comparison the difference on the
    /// model with its verdict, the draws that hold it, the range over the draws, the most
    /// sensitive figures and the verdict with the assumptions. Plain text; the page escapes it.
    public func reportRows() -> [[String]] {
        var rows = [
            [
                "policy", "vs", "can receive alerts, day \(day), on this model", "same verdict in draws",
                "difference over the draws", "most sensitive to", "verdict",
            ]
        ]
        for comparison in comparisons {
            rows.append([
                comparison.policy, comparison.versus,
                Self.points(comparison.base.value) + " (\(comparison.base.verdict.rawValue))",
                "\(comparison.holds) of \(comparison.drawn.count)",
                Self.points(comparison.differenceRange.lowerBound) + " to " + Self.points(comparison.differenceRange.upperBound),
                comparison.mostSensitive.map { influenceText($0, comparison) }.joined(separator: "; "),
                comparison.headline.description,
            ])
        }
        return rows
    }
}
