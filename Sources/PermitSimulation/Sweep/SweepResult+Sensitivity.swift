import Foundation
import PermitCore

extension SweepResult {
    /// A setting as the report names it (`ask=true quiet=false`); `nil` is a draw on which no
    /// setting is within the constraints.
    func settingLabel(_ index: Int?) -> String {
        index.map { paramsText(runs[$0].params) } ?? "no setting within the constraints"
    }

    /// How a figure goes with the chosen setting's margin: `soft_prompt.accept (ρ +0.91: higher favours the choice)`.
    static func influenceText(_ influence: SensitivityResult.Influence) -> String {
        String(
            format: "%@ (ρ %+.2f: higher favours %@)", influence.figure, influence.correlation,
            influence.correlation > 0 ? "the choice" : "the others")
    }

    /// The sensitivity as lines of text, under the choice and its confirmation: how often the
    /// choice stays best over the drawn models, what it flips to, its objective's range, the
    /// figures it depends on most, and the verdict.
    func sensitivityLines() -> [String] {
        guard let sensitivity, let objective else { return [] }
        let n = sensitivity.draws.count
        var lines = [
            "  on \(n) model\(n == 1 ? "" : "s") drawn from the ranges of the model's uncertain figures (the same users and seed): "
                + "best in \(sensitivity.staysBest) of \(n)"
        ]
        let others = sensitivity.winners.filter { $0.setting != sensitivity.chosen }
        if !others.isEmpty {
            lines.append(
                "  best instead: " + others.map { "\(settingLabel($0.setting)) in \($0.count)" }.joined(separator: ", "))
        }
        let range = sensitivity.shareRange
        lines.append(
            String(
                format: "  its %@ over the drawn models: %.1f%% to %.1f%%", objective.description, range.lowerBound * 100,
                range.upperBound * 100))
        let influences = sensitivity.mostSensitive
        if !influences.isEmpty {
            lines.append("  the choice is most sensitive to: " + influences.map(Self.influenceText).joined(separator: ", "))
        }
        lines.append("  verdict: \(sensitivity.verdict)")
        return lines
    }

    /// The sensitivity as JSON, under `best`: `draws`, `stays_best`, `winners` (setting label:
    /// draws), `objective_range`, `most_sensitive` and `verdict`.
    func sensitivityJSON() -> PolicyValue? {
        guard let sensitivity else { return nil }
        let round = SimulationResult.rounded
        var winners: [String: PolicyValue] = [:]
        for winner in sensitivity.winners { winners[settingLabel(winner.setting)] = .integer(Int64(winner.count)) }
        return .table([
            "draws": .integer(Int64(sensitivity.draws.count)),
            "stays_best": .integer(Int64(sensitivity.staysBest)),
            "winners": .table(winners),
            "objective_range": .list([round(sensitivity.shareRange.lowerBound), round(sensitivity.shareRange.upperBound)]),
            "most_sensitive": .list(
                sensitivity.mostSensitive.map { influence in
                    .table(["figure": .string(influence.figure), "correlation": round(influence.correlation)])
                }),
            "verdict": .string(sensitivity.verdict),
        ])
    }

    /// The HTML page's table of the settings best on some drawn model, with their draws; empty
    /// without `--sensitivity`.
    func sensitivityHTML() -> String {
        guard let sensitivity else { return "" }
        var rows = [["setting", "best in drawn models"]]
        for winner in sensitivity.winners {
            let chosen = winner.setting == sensitivity.chosen ? " (the choice)" : ""
            rows.append([settingLabel(winner.setting) + chosen, "\(winner.count) of \(sensitivity.draws.count)"])
        }
        return "<h2>Best setting on the drawn models</h2>\n" + HTMLReport.rows(rows, className: "sweep-sensitivity")
    }
}
