import Foundation
import PermitCore

extension SweepResult {
    /// `permit simulate --sweep ... --report FILE.html`: one chart per figure of the table
    /// against the first swept param (one line per value of the second, each over its 95%
    /// band), the best setting ringed, each constraint's bound drawn as a dashed line on its
    /// figure's charts; then the table and the choice, as in the text report. With three params
    /// or more, each figure gets one chart per combination of the params after the second, all
    /// on one scale (small multiples): nine lines and bands on one chart could not be told
    /// apart. Self-contained and well-formed XML, as the policy report.
    ///
    /// - Parameter modelFile: the model file as the user named it, shown in the page's heading.
    public func html(modelFile: String? = nil) -> String {
        let title = "Permit sweep: \(simulation.policies.first?.name ?? "") over \(axes.joined(separator: ", "))"
        let meta =
            "\(runs.count) settings × \(simulation.users) users × \(simulation.days) days, model "
            + HTMLReport.escape(simulation.model) + (modelFile.map { " (" + HTMLReport.escape($0) + ")" } ?? "")
            + ", seed \(simulation.seed) (every setting meets the same users)"
        let choice = self.choice
        let panels = self.panels
        var body = answer(choice) + sensitivityHTML()
        body += columns.map { metric in
            "<h2 class=\"chart-title\">\(HTMLReport.escape(Self.title(of: metric))) against \(HTMLReport.escape(axes.first ?? ""))</h2>\n"
                + panels.map { chart(metric, panel: $0, best: choice?.best) }.joined()
        }.joined()
        var table = tableRows()
        table[0][table[0].count - 1] = "best"
        body += "<h2>Every setting</h2>\n" + HTMLReport.rows(table, className: "sweep-table")
        if !simulation.warnings.isEmpty {
            body += "<ul class=\"warnings\">\n"
            for warning in simulation.warnings { body += "<li>warning: \(HTMLReport.escape(warning.description))</li>\n" }
            body += "</ul>\n"
        }
        return HTMLReport.page(title: title, meta: meta, body: body)
    }

    /// The answer first: the best setting, by how much it beats the runner-up and how sure
    /// that is, its figure confirmed on fresh users, the constraints, and with `--sensitivity`
    /// how often it stays best on drawn models and the verdict; as the text report
    /// says it, one paragraph per line.
    func answer(_ choice: Choice?) -> String {
        let lines = choiceLines(choice)
        var html = "<section class=\"answer\">\n<h2>The answer</h2>\n"
        for line in lines { html += "<p>\(HTMLReport.escape(line.trimmingCharacters(in: .whitespaces)))</p>\n" }
        return html + "</section>\n"
    }

    /// A figure's title for a reader: `Can receive alerts on day 30 (reach_day_30)`.
    static func title(of metric: SweepMetric) -> String {
        guard let reach = metric.reach else { return "Uninstalls (share of users who deleted the app)" }
        let label = reach.label.prefix(1).uppercased() + reach.label.dropFirst()
        return "\(label) on day \(metric.day) (\(metric))"
    }

    /// The runs of each line: the combinations of every param after the first, each with its
    /// runs in the first param's order (the grid varies the first axis slowest).
    var lineRuns: [(label: String, runs: [Int])] {
        let first = valueCount(of: 0)
        let lines = max(1, runs.count / max(1, first))
        return (0..<lines).map { line in
            let members = (0..<first).map { $0 * lines + line }
            let label = runs[members[0]].params.dropFirst().map { "\($0.0)=\(Self.valueText($0.1))" }.joined(separator: " ")
            return (label.isEmpty ? (simulation.policies.first?.name ?? "") : label, members)
        }
    }

    /// The charts of each figure: one (labelled "") with every line for one or two params; for
    /// three or more, one per combination of the params after the second (`tag=b`), each with
    /// a line per value of the second param. `lineRuns` orders the others' combinations with
    /// the second param slowest, so a panel's lines are every `perPanel`-th one.
    var panels: [(label: String, lines: [(label: String, runs: [Int])])] {
        let lines = lineRuns
        guard axes.count > 2 else { return [("", lines)] }
        let perPanel = max(1, lines.count / max(1, valueCount(of: 1)))
        return (0..<perPanel).map { panel in
            let members = stride(from: panel, to: lines.count, by: perPanel).map { lines[$0] }
            let params = runs[members[0].runs[0]].params
            let label = params.dropFirst(2).map { "\($0.0)=\(Self.valueText($0.1))" }.joined(separator: " ")
            return (
                label,
                members.map { line in
                    (runs[line.runs[0]].params.dropFirst().first.map { "\($0.0)=\(Self.valueText($0.1))" } ?? line.label, line.runs)
                }
            )
        }
    }

    /// How many values the `index`-th swept param takes.
    private func valueCount(of index: Int) -> Int {
        Set(runs.map { $0.params.dropFirst(index).first.map { Self.valueText($0.1) } ?? "" }).count
    }

    /// One figure against the first param, the lines of one panel; every panel of a figure
    /// has the same scale, so that small charts side by side compare.
    func chart(_ metric: SweepMetric, panel: (label: String, lines: [(label: String, runs: [Int])]), best: Int?) -> String {
        let bounds = constraints.filter { $0.metric == metric }
        let highest = (runs.map { metric.share(in: $0.result).interval.high } + bounds.map(\.bound)).max() ?? 0
        let frame = ChartFrame.forHighest(highest, fine: true)
        let lines = panel.lines, f = ChartFrame.f
        let count = lines.first?.runs.count ?? 1
        func x(_ position: Int) -> Double { frame.x(Double(position) + 0.5, of: Double(count)) }
        let within = panel.label.isEmpty ? "" : ", \(panel.label)"
        // Each of a figure's small charts says which figure and which panel it is.
        var svg =
            panel.label.isEmpty
            ? "" : "<h3 class=\"chart-title\">\(HTMLReport.escape(Self.title(of: metric))), \(HTMLReport.escape(panel.label))</h3>\n"
        svg += frame.open(
            label: "\(metric) against \(axes.first ?? "")\(within), one line per setting of the other params",
            title: "\(metric) (95% band) against \(axes.first ?? "")\(within)")
        let ticks = (lines.first?.runs ?? []).enumerated().map {
            (x($0.offset), runs[$0.element].params.first.map { Self.valueText($0.1) } ?? "")
        }
        svg += frame.axes(ticks: ticks, xLabel: axes.first ?? "")
        for (index, line) in lines.enumerated() {
            let colour = HTMLReport.palette[index % HTMLReport.palette.count]
            let shares = line.runs.map { metric.share(in: runs[$0].result) }
            let data = [("metric", metric.description), ("series", line.label)]
            svg += frame.band(shares.enumerated().map { (x($0.offset), $0.element.interval) }, colour: colour, data: data)
            let points = shares.enumerated().map { "\(f(x($0.offset))),\(f(frame.y($0.element.value)))" }
            svg +=
                "<polyline class=\"series\" data-metric=\"\(HTMLReport.escape(metric.description))\" data-series=\"\(HTMLReport.escape(line.label))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\" points=\"\(points.joined(separator: " "))\"><title>\(HTMLReport.escape(line.label))</title></polyline>\n"
            for (position, run) in line.runs.enumerated() where run == best {
                svg +=
                    "<circle class=\"best\" data-metric=\"\(HTMLReport.escape(metric.description))\" cx=\"\(f(x(position)))\" cy=\"\(f(frame.y(shares[position].value)))\" r=\"7\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"><title>best: \(HTMLReport.escape(paramsText(runs[run].params)))</title></circle>\n"
            }
            svg += frame.legend(index, label: line.label, colour: colour)
        }
        for bound in bounds {
            svg +=
                "<line class=\"constraint\" data-constraint=\"\(HTMLReport.escape(bound.description))\" x1=\"\(f(frame.left))\" y1=\"\(f(frame.y(bound.bound)))\" x2=\"\(f(frame.left + frame.plotWidth))\" y2=\"\(f(frame.y(bound.bound)))\" stroke=\"#000\" stroke-dasharray=\"3 3\"><title>\(HTMLReport.escape(bound.description))</title></line>\n"
        }
        return svg + "</svg>\n"
    }
}
