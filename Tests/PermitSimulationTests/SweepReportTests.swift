import Foundation
import Testing

@testable import PermitSimulation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Collects, per chart of the sweep page, its lines, bands, best markers and constraint lines.
final class SweepChartReader: NSObject, XMLParserDelegate {
    struct Chart {
        var series: [(label: String, points: [(Double, Double)])] = []
        var bands: [(label: String, points: [(Double, Double)])] = []
        var best: [(Double, Double)] = []
        var constraints: [(name: String, y: Double)] = []
        var ticks: [String] = []
        var xLabel = ""
        /// The chart's accessible label (`aria-label`), which names its panel.
        var label = ""
    }

    var charts: [Chart] = []
    var scripts = 0
    private var text = "", inTick = false, inXLabel = false

    static func points(_ text: String?) -> [(Double, Double)] {
        (text ?? "").split(separator: " ").map { pair in
            let parts = pair.split(separator: ",").compactMap { Double($0) }
            return (parts[0], parts[1])
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if element == "svg" { charts.append(Chart(label: attributes["aria-label"] ?? "")) }
        if element == "script" { scripts += 1 }
        guard !charts.isEmpty else { return }
        let label = attributes["data-series"] ?? ""
        switch (element, attributes["class"]) {
        case ("polyline", "series"): charts[charts.count - 1].series.append((label, Self.points(attributes["points"])))
        case ("polygon", "band"): charts[charts.count - 1].bands.append((label, Self.points(attributes["points"])))
        case ("circle", "best"):
            charts[charts.count - 1].best.append((Double(attributes["cx"] ?? "") ?? -1, Double(attributes["cy"] ?? "") ?? -1))
        case ("line", "constraint"):
            charts[charts.count - 1].constraints.append((attributes["data-constraint"] ?? "", Double(attributes["y1"] ?? "") ?? -1))
        case ("text", "tick"): (inTick, text) = (true, "")
        case ("text", "axis-label") where attributes["id"] == "x-axis-label": (inXLabel, text) = (true, "")
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        guard element == "text", !charts.isEmpty else { return }
        if inTick { charts[charts.count - 1].ticks.append(text) }
        if inXLabel { charts[charts.count - 1].xLabel = text }
        (inTick, inXLabel) = (false, false)
    }
}

@Suite("Sweep HTML report")
struct SweepReportTests {
    @Test func eachFigureAgainstTheFirstParamWithBandsTheBestAndTheBound() async throws {
        let sweep = try await SweepTests.run(objective: "reach_day_2", constraints: ["uninstalls<=50%", "denied_day_2<=80%"])
        let html = sweep.html(modelFile: "test-model.yaml")
        let reader = SweepChartReader()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "the page is not well-formed: \(String(describing: parser.parserError))")
        #expect(reader.scripts == 0)
        // One chart per figure of the table: reach, quiet, uninstalls, then denied (a constraint's).
        #expect(sweep.columns.map(\.description) == ["reach_day_2", "quiet_day_2", "uninstalls", "denied_day_2"])
        #expect(reader.charts.count == 4)
        for chart in reader.charts {
            #expect(chart.xLabel == "ask")
            // The first param's values along x; one line per value of the second, on its band.
            #expect(chart.ticks.suffix(2) == ["false", "true"])
            #expect(chart.series.map(\.label) == ["quiet=false", "quiet=true"])
            #expect(chart.bands.map(\.label) == ["quiet=false", "quiet=true"])
            for (line, band) in zip(chart.series, chart.bands) {
                #expect(line.points.count == 2 && band.points.count == 4)
                for position in 0..<2 {
                    #expect(band.points[position].1 <= line.points[position].1 + 0.05)  // upper end above (smaller y)
                    #expect(line.points[position].1 <= band.points[3 - position].1 + 0.05)
                }
            }
            // The best (ask=true, quiet=false) is ringed once, on the quiet=false line at ask=true.
            #expect(chart.best.count == 1)
            #expect(chart.best.first?.0 == chart.series[0].points[1].0 && chart.best.first?.1 == chart.series[0].points[1].1)
        }
        // Reach: ask=true, quiet=false is drawn higher than asking nobody.
        let reach = reader.charts[0].series[0].points
        #expect(reach[1].1 < reach[0].1)
        // Each bound is drawn on its own figure's chart only.
        #expect(reader.charts.map { $0.constraints.map(\.name) } == [[], [], ["uninstalls<=50%"], ["denied_day_2<=80%"]])
        // The table and the choice, as in the text report, intervals included.
        #expect(html.contains("may meet") || html.contains("meets the constraints"))
        #expect(html.contains("best (*) ask=true quiet=false"))
    }

    @Test func aOneParamSweepDrawsOneLine() async throws {
        let policy = try SimulationPolicy(source: SweepTests.source, chunkName: "knob.lua")
        let sweep = try await Sweep.run(
            policy: policy, axes: [SweepTests.axes[0]], model: try fixedModel(),
            options: SimulationOptions(users: 100, days: 1, seed: 3, workers: 2),
            objective: SweepMetric(name: "reach_day_1", days: 1), constraints: [])
        let reader = SweepChartReader()
        let parser = XMLParser(data: Data(sweep.html().utf8))
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.charts.count == 3)
        #expect(reader.charts.allSatisfy { $0.series.count == 1 && $0.series[0].points.count == 2 && $0.best.count == 1 })
        #expect(reader.charts.allSatisfy { $0.constraints.isEmpty })
    }

    /// Three params: each figure gets one chart per value of the third, all on one scale, each
    /// with a line per value of the second against the first.
    @Test func threeParamsGiveEachFigureAChartPerValueOfTheThirdOnOneScale() async throws {
        let source = SweepTests.source.replacingOccurrences(
            of: "params = { ask = true, quiet = false }", with: "params = { ask = true, quiet = false, tag = \"a\" }")
        let policy = try SimulationPolicy(source: source, chunkName: "knob3.lua")
        let tags = ["a", "b", "c"]
        let sweep = try await Sweep.run(
            policy: policy, axes: SweepTests.axes + [SweepAxis(param: "tag", values: tags.map { .string($0) })],
            model: try fixedModel(), options: SimulationOptions(users: 100, days: 1, seed: 3, workers: 2),
            objective: SweepMetric(name: "reach_day_1", days: 1),
            constraints: [try SweepConstraint.parse("uninstalls<=50%", days: 1)])
        let reader = SweepChartReader()
        let parser = XMLParser(data: Data(sweep.html().utf8))
        parser.delegate = reader
        #expect(parser.parse(), "the page is not well-formed: \(String(describing: parser.parserError))")
        // reach, quiet and uninstalls, three panels each.
        #expect(reader.charts.count == 9)
        for (index, chart) in reader.charts.enumerated() {
            #expect(chart.label.contains(", tag=\(tags[index % 3]),"), "\(chart.label)")
            #expect(chart.xLabel == "ask" && chart.ticks.suffix(2) == ["false", "true"])
            #expect(chart.series.map(\.label) == ["quiet=false", "quiet=true"])
        }
        for figure in 0..<3 {
            let row = Array(reader.charts[(figure * 3)..<(figure * 3 + 3)])
            // One scale: the same y ticks on every panel; and `tag` changes nothing in the
            // policy, so every panel draws the same lines at the same places.
            #expect(Set(row.map { $0.ticks }).count == 1)
            for chart in row.dropFirst() {
                #expect(chart.series.map { $0.points.map { [$0.0, $0.1] } } == row[0].series.map { $0.points.map { [$0.0, $0.1] } })
            }
            // The best (ask=true, quiet=false; ties go to the earliest setting, tag=a) is ringed
            // once per figure, on the first panel.
            #expect(row.map(\.best.count) == [1, 0, 0])
        }
        // The bound is drawn on each panel of its figure.
        #expect(reader.charts.map(\.constraints.count) == [0, 0, 0, 0, 0, 0, 1, 1, 1])
    }
}

/// The sweep's page reads as a report: the answer first, a visible title on every chart saying
/// which figure it shows, and the settings as a table, not preformatted text.
@Suite("Sweep report: the page a product manager reads")
struct SweepPageTests {
    @Test func theAnswerComesFirstEveryChartHasATitleAndTheTableIsATable() async throws {
        let policy = try SimulationPolicy(source: SweepTests.source, chunkName: "knob.lua")
        let sweep = try await Sweep.run(
            policy: policy, axes: SweepTests.axes, model: try fixedModel(),
            options: SimulationOptions(users: 100, days: 2, seed: 3, workers: 2),
            objective: SweepMetric(name: "reach_day_2", days: 2),
            constraints: [try SweepConstraint.parse("uninstalls<=50%", days: 2)], confirmations: 1)
        let html = sweep.html()
        #expect(XMLParser(data: Data(html.utf8)).parse())
        #expect(!html.contains("<pre"))
        // The answer comes before the first chart, and names the best setting and its confirmation.
        let answer = try #require(html.range(of: "<section class=\"answer\">"))
        let firstChart = try #require(html.range(of: "<svg"))
        #expect(answer.lowerBound < firstChart.lowerBound)
        #expect(html.contains("best (*) ask=true quiet=false") && html.contains("confirmed on 1 fresh seed"))
        // One visible title per figure, before its chart.
        let titles = html.matches(of: /<h2 class="chart-title">(.*?)<\/h2>/).map { String($0.1) }
        #expect(
            titles == [
                "Can receive alerts on day 2 (reach_day_2) against ask", "Quiet (provisional) on day 2 (quiet_day_2) against ask",
                "Uninstalls (share of users who deleted the app) against ask",
            ], "\(titles)")
        // The settings table: a header and one row per setting, the best marked.
        let table = try #require(html.firstMatch(of: /<table class="sweep-table">(?s)(.*?)<\/table>/)?.1)
        let rows = table.matches(of: /<tr>(.*?)<\/tr>/).map { row in
            row.1.matches(of: /<t[dh][^>]*>(.*?)<\/t[dh]>/).map { String($0.1) }
        }
        #expect(rows.first == ["ask", "quiet", "reach_day_2", "quiet_day_2", "uninstalls", "constraints", "best"])
        #expect(rows.count == 5 && rows.filter { $0.last == "*" }.count == 1)
    }
}
