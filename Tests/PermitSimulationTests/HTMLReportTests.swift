import Foundation
import Testing

@testable import PermitSimulation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Collects the chart's series and axis labels from the page, parsed as XML.
final class ChartReader: NSObject, XMLParserDelegate {
    var series: [(policy: String, kind: String, points: [(Double, Double)])] = []
    var axisLabels: [String: String] = [:]
    var svgCount = 0
    /// The 95% bands: policy, series, and the polygon's points (upper bounds, then lower bounds back).
    var bands: [(policy: String, kind: String, points: [(Double, Double)])] = []
    var scripts = 0
    var externalReferences = 0
    private var currentLabel: String?
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if element == "svg" { svgCount += 1 }
        if element == "script" { scripts += 1 }
        if let source = attributes["src"] ?? attributes["href"], !source.hasPrefix("#") { externalReferences += 1 }
        if element == "polyline", attributes["class"] == "series" {
            let points = (attributes["points"] ?? "").split(separator: " ").map { pair in
                let parts = pair.split(separator: ",").compactMap { Double($0) }
                return (parts[0], parts[1])
            }
            series.append((attributes["data-policy"] ?? "", attributes["data-series"] ?? "", points))
        }
        if element == "polygon", attributes["class"] == "band" {
            let points = (attributes["points"] ?? "").split(separator: " ").map { pair in
                let parts = pair.split(separator: ",").compactMap { Double($0) }
                return (parts[0], parts[1])
            }
            bands.append((attributes["data-policy"] ?? "", attributes["data-series"] ?? "", points))
        }
        if element == "text", attributes["class"] == "axis-label" {
            currentLabel = attributes["id"]
            text = ""
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { if currentLabel != nil { text += string } }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "text", let label = currentLabel {
            axisLabels[label] = text
            currentLabel = nil
        }
    }
}

@Suite("HTML report")
struct HTMLReportTests {
    @Test func oneSeriesPerPolicyAndLabelledAxes() async throws {
        let model = try fixedModel()
        let result = await Simulation.run(
            policies: [try pack("polite"), try pack("provisional-first"), try inline("q<&>\"uote", "return nil")],
            model: model, options: SimulationOptions(users: 60, days: 12, seed: 2))
        let html = HTMLReport.render(result, modelFile: "test-model.yaml")
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("They cover simulation noise for this model"))
        #expect(html.contains("Holm-corrected over 6 comparisons"))

        let reader = ChartReader()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "the page is not well-formed: \(String(describing: parser.parserError))")
        #expect(reader.svgCount == 1)
        #expect(reader.scripts == 0 && reader.externalReferences == 0)  // self-contained
        // Two lines per policy: who can receive alerts, and who has quiet delivery only.
        #expect(
            reader.series.map(\.policy) == [
                "polite", "polite", "provisional-first", "provisional-first",
                "q<&>\"uote", "q<&>\"uote",
            ])
        #expect(reader.series.map(\.kind) == ["alerts", "quiet", "alerts", "quiet", "alerts", "quiet"])
        for series in reader.series {
            #expect(series.points.count == 13)  // day 0, then the end of each of the 12 days
            #expect(series.points.map(\.0) == series.points.map(\.0).sorted())  // left to right
        }
        // Each line sits on its 95% band: 13 upper points and 13 lower ones, the upper above (smaller y).
        #expect(reader.bands.map(\.kind) == ["alerts", "quiet", "alerts", "quiet", "alerts", "quiet"])
        for (band, line) in zip(reader.bands, reader.series) {
            #expect(band.points.count == 26)
            for day in 1...12 {
                let upper = band.points[day].1, lower = band.points[25 - day].1
                #expect(upper <= line.points[day].1 && line.points[day].1 <= lower)
            }
        }
        #expect(reader.axisLabels["x-axis-label"] == "day")
        #expect(reader.axisLabels["y-axis-label"] == "% of users")
        // A policy that never asks stays on the x axis; a higher share is drawn higher (smaller y).
        let flat = reader.series[4].points
        #expect(Set(flat.map(\.1)).count == 1)
        // provisional-first makes its users quiet on the first launch: on day 1 its quiet line is
        // above its alerts line, and above the flat line.
        let provisionalQuiet = reader.series[3].points, provisionalAlerts = reader.series[2].points
        #expect(result.policies[1].quietByDay[0] > result.policies[1].canReceiveAlertsByDay[0])
        #expect(provisionalQuiet[1].1 < provisionalAlerts[1].1)
        #expect(provisionalQuiet[1].1 < flat[1].1)
    }

    @Test func tickSteps() {
        #expect(HTMLReport.niceStep(7) == 1)
        #expect(HTMLReport.niceStep(30) == 5)
        #expect(HTMLReport.niceStep(90) == 10)
        #expect(HTMLReport.niceStep(365) == 50)
    }
}

/// A policy with a 50/50 experiment: the `now` arm asks at the first launch, `later` never does,
/// so the arms differ clearly on who can receive alerts.
func splitExperimentPolicy() throws -> SimulationPolicy {
    try SimulationPolicy(
        source: """
            return { name = "split", experiments = { first_ask = { now = 50, later = 50 } },
              decide = function(ctx)
                if ctx.event.name == "app_launch" and ctx.status == "not_determined"
                  and ctx.user.arms.first_ask == "now" then
                  return { action = "request_permission", reason = "launch" }
                end
              end }
            """, chunkName: "split.lua")
}

/// The page a product manager reads carries the A/B answer: each experiment's table per arm on
/// the reported days, and the live test that would confirm a difference.
@Suite("HTML report: experiments and the live test")
struct HTMLReportExperimentTests {
    @Test func thePageHasTheExperimentTableAndTheLiveTestPlan() async throws {
        let split = try splitExperimentPolicy()
        let never = try SimulationPolicy(
            source: "return { name = \"never\", decide = function(ctx) return nil end }", chunkName: "never.lua")
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let result = await Simulation.run(
            policies: [never, split], model: model, options: SimulationOptions(users: 400, days: 7, seed: 3))
        let page = HTMLReport.render(result)
        #expect(XMLParser(data: Data(page.utf8)).parse(), "the page is well-formed")
        let table = try #require(page.firstMatch(of: /<table class="arms">(?s)(.*?)<\/table>/)?.1)
        let rows = table.matches(of: /<tr>(.*?)<\/tr>/).map { row in
            row.1.matches(of: /<t[dh][^>]*>(.*?)<\/t[dh]>/).map { String($0.1) }
        }
        #expect(rows.first == ["arm", "users", "day", "can receive alerts", "vs later", "quiet", "uninstalled"])
        // Two arms on days 1 and 7, their users adding up to the run's.
        #expect(rows.count == 5)
        #expect(rows.dropFirst().map { $0[2] } == ["1", "7", "1", "7"])
        #expect(Int(rows[1][1])! + Int(rows[3][1])! == 400)
        #expect(rows[3][4].contains("uncorrected: excludes 0"), "asking at launch reaches users the later arm does not")
        #expect(page.contains("<h2>Live A/B test to confirm</h2>"))
        #expect(page.contains("installs per arm") && page.contains("the live test is what decides"))
    }
}
