import Foundation
import PermitTestSupport
import Testing

@testable import PermitScenario

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `--coverage`'s decisions, `--coverage-format lcov|cobertura` and JUnit's times and errors,
/// through the `permit` verbs (in-process).
@Suite struct CoverageExportCLITests {
    /// Returns on known lines: a plain one (8), a tail call into a helper (11), one spread over
    /// lines (14–17) and one no scenario reaches (19); the helper's own (2) is not decide's.
    static let policy = """
        local function helper(ctx)
          return { action = "none", reason = "from the helper" }
        end
        return {
          name = "tiny",
          decide = function(ctx)
            if ctx.event.name == "app_launch" then
              return { action = "none", reason = "launch" }
            end
            if ctx.event.name == "feature_opened" then
              return helper(ctx)
            end
            if ctx.event.name == "app_background" then
              return {
                action = "none",
                reason = "background",
              }
            end
            return { action = "none", reason = "never reached" }
        end,
        }
        """
    static let scenario = """
        device: { os: "16.0" }
        steps:
          - { event: app_launch, expect: none }
          - { event: feature_opened, feature: x, expect: none }
          - { event: app_background, expect: none }
          - { event: app_launch, expect: none }
        """

    func tree() -> Tree {
        let tree = Tree()
        tree.write("tiny/policy.lua", Self.policy)
        tree.write("tiny/tests/a.yaml", Self.scenario)
        tree.write("tiny/tests/b.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect: none }\n")
        return tree
    }

    @Test func theTextReportSaysWhichReturnAnsweredAndWhichNeverDid() async throws {
        let tree = tree()
        let result = try await CLITests.permit(["test", "--coverage", "tiny"], in: tree.root)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                """
                decisions (which return of decide answered)
                  tiny/policy.lua  3 of 4 returns reached  never reached: line 19
                    line 8  none (launch)  ×3
                    line 11  none (from the helper)  ×1
                    line 14  none (background)  ×1
                """), "\(result.stdout)")
    }

    /// A coroutine's body also has no Lua frame below it: its lines and its `return` are not
    /// decide's, even after decide tail-called the helper that runs it.
    @Test func aCoroutineInsideATailCallDoesNotMoveTheAnswer() async throws {
        let tree = Tree()
        tree.write(
            "co/policy.lua",
            """
            local function finish(ctx)
              local co = coroutine.wrap(function()
                return "from the coroutine"
              end)
              return { action = "none", reason = co() }
            end
            return {
              name = "co",
              decide = function(ctx)
                return finish(ctx)
              end,
            }
            """)
        tree.write("co/tests/a.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect: none }\n")
        let result = try await CLITests.permit(["test", "--coverage", "--format", "json", "co"], in: tree.root)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let decisions = try #require((object?["decisions"] as? [[String: Any]])?.first)
        #expect(decisions["returns"] as? [Int] == [10])
        #expect(decisions["never_reached"] as? [Int] == [])
        let answers = try #require(decisions["answers"] as? [[String: Any]])
        #expect(answers.count == 1)
        #expect(answers.first?["line"] as? Int == 10 && answers.first?["reason"] as? String == "from the coroutine")
        #expect(answers.first?["count"] as? Int == 1 && answers.first?["action"] as? String == "none")
    }

    /// A `return` whose decision a guardrail voided answered, but no user saw it: marked.
    @Test func aDecisionAGuardrailVoidedIsMarked() async throws {
        let tree = Tree()
        tree.write(
            "v/policy.lua",
            """
            return { name = "v", decide = function(ctx)
              if ctx.event.name == "app_foreground" then return { action = "open_settings", deep_link = "app_settings", reason = "ask" } end
              return { action = "none", reason = "quiet" }
            end }
            """)
        tree.write(
            "v/tests/a.yaml",
            """
            device: { os: "16.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch, expect: none }
              - { event: app_foreground, expect: none, expect_warning: open-settings-not-user-initiated }

            """)
        let text = try await CLITests.permit(["test", "--coverage", "v"], in: tree.root)
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(
            text.stdout.contains("    line 2  open_settings (ask)  ×1  voided by open-settings-not-user-initiated ×1\n"), "\(text.stdout)")
        #expect(text.stdout.contains("    line 3  none (quiet)  ×1\n"), "an answer the app got is not marked")
        let json = try await CLITests.permit(["test", "--coverage", "--format", "json", "v"], in: tree.root)
        #expect(json.stdout.contains(#""voided" : {"#) || json.stdout.contains(#""voided": {"#), "\(json.stdout)")
    }

    @Test func lcovRecordsAreCompleteAndRelative() async throws {
        let tree = tree()
        let result = try await CLITests.permit(["test", "--coverage-format", "lcov", "tiny"], in: tree.root)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("lcov coverage written to lcov.info"))
        let lcov = try String(contentsOfFile: tree.path("lcov.info"), encoding: .utf8)
        let records = lcov.components(separatedBy: "end_of_record\n").filter { !$0.isEmpty }
        #expect(records.count == 1 && lcov.hasSuffix("end_of_record\n"))
        let lines = records[0].split(separator: "\n").map(String.init)
        #expect(lines.first == "TN:" && lines[1] == "SF:tiny/policy.lua", "paths relative to the working directory")
        let hits = lines.filter { $0.hasPrefix("DA:") }.map { $0.dropFirst(3).split(separator: ",").map { Int($0)! } }
        #expect(lines.contains("LF:\(hits.count)") && lines.contains("LH:\(hits.filter { $0[1] > 0 }.count)"))
        #expect(hits.contains([8, 2]), "two scenarios ran line 8")
        #expect(hits.contains([19, 0]), "line 19 has code and never ran")
        // Each return of decide is a branch: taken as often as a call returned there.
        #expect(lines.filter { $0.hasPrefix("BRDA:") } == ["BRDA:8,0,0,3", "BRDA:11,0,1,1", "BRDA:14,0,2,1", "BRDA:19,0,3,-"], "\(lines)")
        #expect(lines.contains("BRF:4") && lines.contains("BRH:3"))

        // Both files from one run.
        let both = try await CLITests.permit(
            ["test", "--coverage-format", "lcov", "--coverage-format", "cobertura", "tiny"], in: tree.root)
        #expect(both.status == 0, "\(both.stderr)")
        #expect(
            both.stderr.contains("lcov coverage written to lcov.info") && both.stderr.contains("cobertura coverage written to coverage.xml")
        )
        #expect(try String(contentsOfFile: tree.path("lcov.info"), encoding: .utf8) == lcov, "the same records")
        #expect(try String(contentsOfFile: tree.path("coverage.xml"), encoding: .utf8).contains("<coverage "))
        let oneOutput = try await CLITests.permit(
            ["test", "--coverage-format", "lcov", "--coverage-format", "cobertura", "--coverage-output", "x", "tiny"], in: tree.root)
        #expect(oneOutput.status == 2 && oneOutput.stderr.contains("--coverage-output names one file"), "\(oneOutput.stderr)")

        let noFormat = try await CLITests.permit(["test", "--coverage-output", "x.info", "tiny"], in: tree.root)
        #expect(noFormat.status == 2 && noFormat.stderr.contains("--coverage-output needs --coverage-format lcov or cobertura"))
    }

    @Test func coberturaIsWellFormedXMLWithRelativeFileNames() async throws {
        let tree = tree()
        let result = try await CLITests.permit(
            ["test", "--coverage-format", "cobertura", "--coverage-output", "out/cov.xml", "tiny"], in: tree.root)
        #expect(result.status == 2 && result.stderr.contains("out/cov.xml: cannot write"), "\(result.stderr)")
        try FileManager.default.createDirectory(atPath: tree.path("out"), withIntermediateDirectories: true)
        let written = try await CLITests.permit(
            ["test", "--coverage-format", "cobertura", "--coverage-output", "out/cov.xml", "tiny"], in: tree.root)
        #expect(written.status == 0, "\(written.stderr)")
        let xml = try Data(contentsOf: URL(fileURLWithPath: tree.path("out/cov.xml")))
        let collector = ElementCollector()
        let parser = XMLParser(data: xml)
        parser.delegate = collector
        #expect(parser.parse(), "well-formed: \(String(describing: parser.parserError))")
        let coverage = try #require(collector.elements.first { $0.name == "coverage" })
        #expect(coverage.attributes["branches-valid"] == "4" && coverage.attributes["branches-covered"] == "3")
        let linesValid = Int(coverage.attributes["lines-valid"] ?? "") ?? 0
        #expect(linesValid == collector.elements.filter { $0.name == "line" }.count)
        let source = collector.elements.first { $0.name == "source" }
        #expect(source != nil)
        let file = try #require(collector.elements.first { $0.name == "class" })
        #expect(file.attributes["filename"] == "tiny/policy.lua")
        let branchLine = collector.elements.first { $0.name == "line" && $0.attributes["number"] == "19" }
        #expect(branchLine?.attributes["branch"] == "true" && branchLine?.attributes["condition-coverage"] == "0% (0/1)")
    }

    @Test func junitHasTimesAndTellsErrorsFromFailures() async throws {
        let tree = tree()
        tree.write("tiny/tests/c.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect: soft_prompt }\n")
        tree.write("tiny/tests/d.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expct: none }\n")
        // A policy that raises where the scenario expected a prompt: an error, not a failure.
        tree.write("boom/policy.lua", "return { name = \"boom\", decide = function(ctx) error(\"boom\") end }\n")
        tree.write("boom/tests/a.yaml", "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect: soft_prompt }\n")
        let result = try await CLITests.permit(["test", "--format", "junit", "tiny", "boom"], in: tree.root)
        #expect(result.status == 2)
        let collector = ElementCollector()
        let parser = XMLParser(data: Data(result.stdout.utf8))
        parser.delegate = collector
        #expect(parser.parse())
        let root = try #require(collector.elements.first { $0.name == "testsuites" })
        #expect(
            root.attributes["tests"] == "5" && root.attributes["failures"] == "1" && root.attributes["errors"] == "2", "\(result.stdout)")
        let cases = collector.elements.filter { $0.name == "testcase" }
        #expect(cases.count == 5)
        let boom = try #require(collector.elements.first { $0.name == "testsuite" && $0.attributes["name"] == "boom" })
        #expect(boom.attributes["errors"] == "1" && boom.attributes["failures"] == "0")
        #expect(
            result.stdout.contains("<error message=\"step 1 (line 3): the policy raised an error: boom/policy.lua:1: boom"),
            "\(result.stdout)")
        for testCase in cases + [root] {
            let time = try #require(Double(testCase.attributes["time"] ?? ""), "every case has a time in seconds")
            #expect(time >= 0)
        }
        #expect(collector.elements.contains { $0.name == "failure" } && collector.elements.contains { $0.name == "error" })
    }
}

/// Every element of an XML document, in order, with its attributes.
final class ElementCollector: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
    }

    var elements: [Element] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        elements.append(Element(name: elementName, attributes: attributes))
    }
}
