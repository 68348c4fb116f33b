import Foundation
import PermitInput
import PermitLua
import PermitTestSupport
import Testing

@testable import PermitCore
@testable import PermitScenario

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Loads every policy as the Swift polite policy; a file containing "broken" fails to load.
let swiftLoader: PolicyLoader = { url throws(PolicyError) in
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    if text.contains("broken") {
        throw PolicyError(kind: .load, message: "unexpected symbol near 'broken'", file: url.lastPathComponent, line: 1)
    }
    return polite
}

@Suite struct DiscoveryTests {
    @Test func findsPacksAndLooseFiles() throws {
        let tree = Tree()
        tree.write("policies/polite/policy.lua", "return {}")
        tree.write("policies/polite/tests/b.yaml", passing)
        tree.write("policies/polite/tests/a.yml", passing)
        tree.write("policies/polite/tests/notes.txt", "not a scenario")
        tree.write("policies/polite/README.md", "# polite")
        tree.write("policies/loose/one.yaml", passing)
        tree.write("policies/.hidden/x.yaml", passing)
        let files = try Discovery.scenarios(under: [tree.path("policies")])
        #expect(files.map { $0.url.lastPathComponent } == ["one.yaml", "a.yml", "b.yaml"])
        #expect(files[1].pack == "polite" && files[1].packPolicy?.lastPathComponent == "policy.lua")
        #expect(files[0].pack == nil && files[0].packPolicy == nil)
        // A single file inside a pack still knows its pack's policy; duplicates are dropped.
        let single = try Discovery.scenarios(under: [tree.path("policies/polite/tests/b.yaml"), tree.path("policies/polite")])
        #expect(single.map { $0.url.lastPathComponent } == ["b.yaml", "a.yml"])
        #expect(single[0].packPolicy != nil)
    }

    @Test func missingPathsAndNonScenarioFilesAreInputErrors() {
        let tree = Tree()
        tree.write("readme.md", "x")
        #expect(throws: InputError.self) { try Discovery.scenarios(under: [tree.path("nowhere")]) }
        #expect(throws: InputError.self) { try Discovery.scenarios(under: [tree.path("readme.md")]) }
    }
}

@Suite struct TestRunTests {
    func run(_ tree: Tree, filter: String? = nil) async throws -> TestRun {
        await TestRun.run(try Discovery.scenarios(under: [tree.path()]), filter: filter, loader: swiftLoader)
    }

    @Test func passesFailuresAndExitCodes() async throws {
        let tree = Tree()
        tree.write("polite/policy.lua", "return {}")
        tree.write("polite/tests/pass.yaml", passing)
        var run = try await self.run(tree)
        #expect(run.passedCount == 1 && run.failedCount == 0 && run.exitCode == 0)
        tree.write("polite/tests/fail.yaml", failing)
        run = try await self.run(tree)
        #expect(run.passedCount == 1 && run.failedCount == 1 && run.exitCode == 1)
        tree.write("polite/tests/bad.yaml", "device: { os: \"16\" }\nstep: []\n")
        run = try await self.run(tree)
        #expect(run.exitCode == 2)
        let text = TextReport().render(run)
        #expect(text.hasSuffix("\n1 scenario file could not be read (exit 2)\n1 passed, 1 failed, 0 skipped"))
        #expect(text.contains("bad.yaml:2:1: unknown key \"step\"; did you mean \"steps\"?"))
        #expect(text.contains("FAIL  "))
        #expect(text.contains("step 1 (line 4) +0s feature_opened feature=\"x\""))
        #expect(text.contains("✗ expected none, got soft_prompt (reason: feature opened)"))
    }

    @Test func filterSelectsByPathOrName() async throws {
        let tree = Tree()
        tree.write("polite/policy.lua", "return {}")
        tree.write("polite/tests/pass.yaml", passing)
        tree.write("polite/tests/fail.yaml", failing)
        let run = try await self.run(tree, filter: "PASSES")
        #expect(run.reports.map(\.name) == ["passes"])
    }

    /// One error for the pack, not the same FAIL once per scenario; bad input, so exit 2.
    @Test func aPolicyThatDoesNotLoadIsOneErrorForItsPack() async throws {
        let tree = Tree()
        tree.write("broken/policy.lua", "broken")
        tree.write("broken/tests/a.yaml", passing)
        tree.write("broken/tests/b.yaml", failing)
        tree.write("broken/tests/c.yaml", passing)
        tree.write("good/policy.lua", "return {}")
        tree.write("good/tests/pass.yaml", passing)
        let run = try await self.run(tree)
        #expect(run.exitCode == 2)
        #expect(run.reports.count == 2 && run.inputErrorCount == 1 && run.passedCount == 1 && run.failedCount == 0)
        let text = TextReport().render(run)
        let policy = Discovery.displayPath(of: tree.root.appendingPathComponent("broken/policy.lua"))
        #expect(
            text.contains(
                "ERROR \(policy)  the policy did not load; 3 scenarios did not run\n      policy.lua:1: unexpected symbol near 'broken'"))
        #expect(text.components(separatedBy: "unexpected symbol").count == 2, "the load error is printed once")
        #expect(text.hasSuffix("\n1 policy did not load (exit 2)\n1 passed, 0 failed, 0 skipped"))
        let json = try JSONSerialization.jsonObject(with: Data(JSONReport.render(run).utf8)) as! [String: Any]
        let first = (json["scenarios"] as! [[String: Any]])[0]
        #expect(first["scenarios_not_run"] as? Int == 3 && first["policy"] as? String == policy)
        #expect(JUnitReport.render(run).contains("errors=\"1\""))
    }

    @Test func aLooseFileWithoutAPolicyIsAnInputError() async throws {
        let tree = Tree()
        tree.write("loose.yaml", passing)
        let run = try await self.run(tree)
        #expect(run.exitCode == 2)
        #expect(TextReport().render(run).contains("the scenario names no policy and is not in a pack"))
        tree.write("named.yaml", "policy: nowhere.lua\n" + passing)
        let named = try await self.run(tree)
        #expect(TextReport().render(named).contains("nowhere.lua does not exist"))
    }

    @Test func verboseShowsPassingSteps() async throws {
        let tree = Tree()
        tree.write("polite/policy.lua", "return {}")
        tree.write("polite/tests/pass.yaml", passing)
        let run = try await self.run(tree)
        #expect(!TextReport().render(run).contains("step 2"))
        #expect(TextReport(verbose: true).render(run).contains("step 2 (line 5) +0s answer decline"))
        // The colour is a mark the console's escaping turns into the escape sequence.
        #expect(TerminalText.escaped(TextReport(colour: true).render(run)).contains("\u{1B}[32mPASS\u{1B}[0m"))
    }

    @Test func jsonIsParseableAndComplete() async throws {
        let tree = Tree()
        tree.write("polite/policy.lua", "return {}")
        tree.write("polite/tests/fail.yaml", failing)
        let run = try await self.run(tree)
        let object = try JSONSerialization.jsonObject(with: Data(JSONReport.render(run).utf8)) as! [String: Any]
        #expect(object["passed"] as? Int == 0 && object["failed"] as? Int == 1)
        let scenario = (object["scenarios"] as! [[String: Any]])[0]
        #expect(scenario["name"] as? String == "fails" && scenario["pack"] as? String == "polite")
        let step = (scenario["steps"] as! [[String: Any]])[0]
        #expect(step["line"] as? Int == 4)
        #expect((step["decision"] as? [String: Any])?["action"] as? String == "soft_prompt")
        #expect((step["failures"] as? [String])?.first?.hasPrefix("expected none, got soft_prompt") == true)
    }

    @Test func junitIsWellFormedXML() async throws {
        let tree = Tree()
        tree.write("polite/policy.lua", "return {}")
        tree.write("polite/tests/pass.yaml", passing)
        tree.write("polite/tests/fail.yaml", failing.replacingOccurrences(of: "name: fails", with: "name: \"fails <&> \\u0001\""))
        let run = try await self.run(tree)
        let xml = JUnitReport.render(run)
        final class Collector: NSObject, XMLParserDelegate {
            var cases: [String] = []
            var failures = 0
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                if name == "testcase" { cases.append(attributes["name"] ?? "") }
                if name == "failure" { failures += 1 }
            }
        }
        let collector = Collector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = collector
        #expect(parser.parse(), "\(xml)")
        #expect(collector.cases.sorted() == ["fails <&> ", "passes"])
        #expect(collector.failures == 1)
    }
}

@Suite struct CoverageReportTests {
    @Test func coverageIsMergedPerPolicyAndReported() async throws {
        let tree = Tree()
        tree.write(
            "p/policy.lua",
            """
            return { name = "p", decide = function(ctx)
              if ctx.status == "denied" then
                return { action = "none", reason = "denied" }
              end
              return nil
            end }
            """)
        tree.write("p/tests/a.yaml", "device: { os: \"16.0\" }\nsteps:\n  - event: app_launch\n")
        let loader: PolicyLoader = { url throws(PolicyError) in
            try LuaPolicy.load(contentsOf: url, displayName: "p/policy.lua", coverage: true)
        }
        var run = await TestRun.run(try Discovery.scenarios(under: [tree.path()]), filter: nil, loader: loader)
        #expect(run.coverage.count == 1)
        #expect(run.coverage.first?.missed == [3])
        #expect(TextReport().render(run).contains("p/policy.lua  80.0%  (4 of 5 lines)  not run: 3"))
        tree.write("p/tests/b.yaml", "device: { os: \"16.0\" }\ninitial: { authorization: denied }\nsteps:\n  - event: app_launch\n")
        run = await TestRun.run(try Discovery.scenarios(under: [tree.path()]), filter: nil, loader: loader)
        #expect(run.coverage.first?.percent == 100)
        let json = try JSONSerialization.jsonObject(with: Data(JSONReport.render(run).utf8)) as! [String: Any]
        #expect(((json["coverage"] as? [[String: Any]])?.first?["percent"] as? Double) == 100)
        #expect(LineRanges.describe([1, 2, 3, 5, 7, 8]) == "1–3, 5, 7–8")
    }

    /// Each cold launch runs a fresh VM: the lines a later process ran count too.
    @Test func coverageCountsEveryProcessOfAScenario() async throws {
        let tree = Tree()
        tree.write(
            "p/policy.lua",
            """
            return { name = "p", decide = function(ctx)
              if ctx.status == "denied" then
                return { action = "none", reason = "denied" }
              end
              return nil
            end }
            """)
        tree.write(
            "p/tests/a.yaml",
            """
            device: { os: "16.0" }
            initial: { authorization: authorized }
            steps:
              - event: app_launch
              - terminate: true
              - settings: { authorization: denied }
              - event: app_launch
            """)
        let loader: PolicyLoader = { url throws(PolicyError) in
            try LuaPolicy.load(contentsOf: url, displayName: "p/policy.lua", coverage: true)
        }
        let run = await TestRun.run(try Discovery.scenarios(under: [tree.path()]), filter: nil, loader: loader)
        #expect(run.passedCount == 1)
        #expect(run.coverage.first?.percent == 100)
        #expect(run.decisionCoverage.first?.neverReached.contains(3) == false)
    }
}
