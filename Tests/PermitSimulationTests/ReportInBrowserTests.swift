import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// The reports as a browser lays them out (Debian's chromium, headless): what a product
/// manager opening the file sees. A page fails when something sticks out of a 1280-pixel
/// window, a chart is drawn at no size or without a title saying what it shows, a table is
/// empty, or the answer is not the first thing on the page.
@Suite("reports in a real browser")
struct ReportInBrowserTests {
    /// What is wrong with a laid-out report; empty for a good page.
    static func problems(_ layout: Browser.Layout) -> [String] {
        var problems: [String] = []
        if layout.pageWidth > layout.viewportWidth + 0.5 {
            problems.append("the page is \(layout.pageWidth) px wide in a \(layout.viewportWidth) px window: something is cut off")
        }
        if layout.charts.isEmpty { problems.append("no chart") }
        for (index, chart) in layout.charts.enumerated() {
            if chart.width < 200 || chart.height < 150 { problems.append("chart \(index + 1) is \(chart.width)×\(chart.height)") }
            if chart.right > layout.viewportWidth + 0.5 { problems.append("chart \(index + 1) ends at \(chart.right) px") }
            if layout.chartTitles[index].isEmpty { problems.append("chart \(index + 1) has no title") }
        }
        for table in layout.tables {
            if table.rows < 2 { problems.append("table \(table.className) has \(table.rows) rows") }
            if table.box.right > layout.viewportWidth + 0.5 { problems.append("table \(table.className) ends at \(table.box.right) px") }
        }
        if layout.headings.first != "The answer" { problems.append("the first heading is \(layout.headings.first ?? "none")") }
        if layout.answer.trimmingCharacters(in: .whitespacesAndNewlines).count < 30 { problems.append("the answer is empty") }
        for code in layout.brokenCode { problems.append("\(code) is broken across lines") }
        return problems
    }

    static func comparison() async throws -> SimulationResult {
        let split = try splitExperimentPolicy()
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let polite = try SimulationPolicy.load(contentsOf: repositoryRoot.appendingPathComponent("policies/polite/policy.lua"))
        return await Simulation.run(
            policies: [polite, split], model: model, options: SimulationOptions(users: 300, days: 14, seed: 2))
    }

    @Test func theComparisonPageLaysOutWhole() async throws {
        let layout = try await Browser.layout(of: HTMLReport.render(try await Self.comparison()))
        #expect(Self.problems(layout) == [])
        #expect(layout.tables.map(\.className) == ["summary", "arms"])
        #expect(layout.answer.contains("split vs polite"))
    }

    /// A command the page tells the reader to run stays on one line in a narrow window too: at
    /// 560 pixels the sentence naming `--sensitivity 20` ends at that command.
    @Test func aCommandOnThePageIsNeverSplitAcrossLines() async throws {
        let page = HTMLReport.render(try await Self.comparison())
        #expect(page.contains("<code>--sensitivity 20</code>"))
        let layout = try await Browser.layout(of: page, width: 560)
        #expect(layout.brokenCode == [])
    }

    /// Three params: nine small charts, each with the title of its figure and its panel.
    @Test func theSweepPageLaysOutWhole() async throws {
        let source = SweepTests.source.replacingOccurrences(
            of: "params = { ask = true, quiet = false }", with: "params = { ask = true, quiet = false, tag = \"a\" }")
        let policy = try SimulationPolicy(source: source, chunkName: "knob3.lua")
        let sweep = try await Sweep.run(
            policy: policy,
            axes: SweepTests.axes + [SweepAxis(param: "tag", values: ["a", "b", "c"].map { .string($0) })],
            model: try fixedModel(), options: SimulationOptions(users: 100, days: 1, seed: 3, workers: 2),
            objective: SweepMetric(name: "reach_day_1", days: 1),
            constraints: [try SweepConstraint.parse("uninstalls<=50%", days: 1)], confirmations: 1)
        let layout = try await Browser.layout(of: sweep.html())
        #expect(Self.problems(layout) == [])
        #expect(layout.charts.count == 9)
        #expect(layout.chartTitles.first == "Can receive alerts on day 1 (reach_day_1), tag=a")
        #expect(layout.headings.contains("Can receive alerts on day 1 (reach_day_1) against ask"))
        #expect(layout.tables.map(\.className) == ["sweep-table"] && layout.tables[0].rows == 13)
    }

    /// The check fails on a broken page: a settings table as one long preformatted line (as
    /// the sweep page once had it), a chart without its title, an answer missing.
    @Test func aBrokenPageIsCaught() async throws {
        let good = HTMLReport.render(try await Self.comparison())
        let wide = "<pre>" + String(repeating: "reach_day_30 52.0% [49.9, 54.2]  ", count: 60) + "</pre>\n</body>"
        let broken = good.replacingOccurrences(of: "<h2>The answer</h2>", with: "")
            .replacingOccurrences(of: "<h2 class=\"chart-title\">", with: "<p>").replacingOccurrences(
                of: "over the days</h2>", with: "over the days</p>"
            )
            .replacingOccurrences(of: "</body>", with: wide)
        let problems = Self.problems(try await Browser.layout(of: broken))
        #expect(problems.contains { $0.contains("something is cut off") }, "\(problems)")
        #expect(problems.contains("chart 1 has no title"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("the first heading is") }, "\(problems)")
    }
}
