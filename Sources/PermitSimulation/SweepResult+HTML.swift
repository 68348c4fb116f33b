import Foundation
import PermitCore

extension SweepResult {
    /// `permit simulate --sweep ... --report FILE.html`: one chart per figure of the table
    /// against the first swept param (one line per combination of the others, each over its
    /// 95% band), the best setting ringed on every chart, each constraint's bound drawn as a
    /// dashed line on its figure's chart; then the table and the choice, as in the text report.
    /// Self-contained and well-formed XML, as the policy report.
    ///
    /// - Parameter modelFile: the model file as the user named it, shown in the page's heading.
    public func html(modelFile: String? = nil) -> String {
        let title = "Permit sweep: \(simulation.policies.first?.name ?? "") over \(axes.joined(separator: ", "))"
        let meta = "\(runs.count) settings × \(simulation.users) users × \(simulation.days) days, model "
            + HTMLReport.escape(simulation.model) + (modelFile.map { " (" + HTMLReport.escape($0) + ")" } ?? "")
            + ", seed \(simulation.seed) (every setting meets the same users)"
        let choice = self.choice
        var body = columns.map { chart($0, best: choice?.best) }.joined()
        body += "<pre class=\"sweep-table\">" + HTMLReport.escape(text()) + "</pre>\n"
        if !simulation.warnings.isEmpty {
            body += "<ul class=\"warnings\">\n"
            for warning in simulation.warnings { body += "<li>warning: \(HTMLReport.escape(warning.description))</li>\n" }
            body += "</ul>\n"
        }
        return HTMLReport.page(title: title, meta: meta, body: body)
    }

    /// The runs of each line: the combinations of every param after the first, each with its
    /// runs in the first param's order (the grid varies the first axis slowest).
    var lineRuns: [(label: String, runs: [Int])] {
        let first = Set(runs.map { $0.params.first.map { Self.valueText($0.1) } ?? "" }).count
        let lines = max(1, runs.count / max(1, first))
        return (0..<lines).map { line in
            let members = (0..<first).map { $0 * lines + line }
            let label = runs[members[0]].params.dropFirst().map { "\($0.0)=\(Self.valueText($0.1))" }.joined(separator: " ")
            return (label.isEmpty ? (simulation.policies.first?.name ?? "") : label, members)
        }
    }

    /// One figure against the first param.
    func chart(_ metric: SweepMetric, best: Int?) -> String {
        let bounds = constraints.filter { $0.metric == metric }
        let highest = (runs.map { metric.share(in: $0.result).interval.high } + bounds.map(\.bound)).max() ?? 0
        let frame = ChartFrame.forHighest(highest, fine: true)
        let lines = lineRuns, f = ChartFrame.f
        let count = lines.first?.runs.count ?? 1
        func x(_ position: Int) -> Double { frame.x(Double(position) + 0.5, of: Double(count)) }
        var svg = frame.open(label: "\(metric) against \(axes.first ?? ""), one line per setting of the other params",
                             title: "\(metric) (95% band) against \(axes.first ?? "")")
        let ticks = (lines.first?.runs ?? []).enumerated().map { (x($0.offset), runs[$0.element].params.first.map { Self.valueText($0.1) } ?? "") }
        svg += frame.axes(ticks: ticks, xLabel: axes.first ?? "")
        for (index, line) in lines.enumerated() {
            let colour = HTMLReport.palette[index % HTMLReport.palette.count]
            let shares = line.runs.map { metric.share(in: runs[$0].result) }
            let data = [("metric", metric.description), ("series", line.label)]
            svg += frame.band(shares.enumerated().map { (x($0.offset), $0.element.interval) }, colour: colour, data: data)
            let points = shares.enumerated().map { "\(f(x($0.offset))),\(f(frame.y($0.element.value)))" }
            svg += "<polyline class=\"series\" data-metric=\"\(HTMLReport.escape(metric.description))\" data-series=\"\(HTMLReport.escape(line.label))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\" points=\"\(points.joined(separator: " "))\"><title>\(HTMLReport.escape(line.label))</title></polyline>\n"
            for (position, run) in line.runs.enumerated() where run == best {
                svg += "<circle class=\"best\" data-metric=\"\(HTMLReport.escape(metric.description))\" cx=\"\(f(x(position)))\" cy=\"\(f(frame.y(shares[position].value)))\" r=\"7\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"><title>best: \(HTMLReport.escape(paramsText(runs[run].params)))</title></circle>\n"
            }
            svg += frame.legend(index, label: line.label, colour: colour)
        }
        for bound in bounds {
            svg += "<line class=\"constraint\" data-constraint=\"\(HTMLReport.escape(bound.description))\" x1=\"\(f(frame.left))\" y1=\"\(f(frame.y(bound.bound)))\" x2=\"\(f(frame.left + frame.plotWidth))\" y2=\"\(f(frame.y(bound.bound)))\" stroke=\"#000\" stroke-dasharray=\"3 3\"><title>\(HTMLReport.escape(bound.description))</title></line>\n"
        }
        return svg + "</svg>\n"
    }
}
