import Foundation
import PermitCore
import PermitLua
import PermitLuaTestSupport
import PermitTestSupport
import Testing

@testable import PermitScenario

/// The fidelity suite (`Tests/fidelity/*.yaml`): one scenario per platform rule of
/// docs/platform.md, run with the real Lua policies, and the table's rule ids kept equal to the
/// ids the scenarios claim (`# rule: R-01` comments), so no rule is documented without a
/// scenario showing it and no scenario claims a rule the table does not list.
@Suite struct FidelitySuiteTests {
    static let suite = Repository.root.appendingPathComponent("Tests/fidelity")
    static let platformDoc = Repository.root.appendingPathComponent("docs/platform.md")

    @Test func everyFidelityScenarioPasses() async throws {
        let files = try Discovery.scenarios(under: [Self.suite.path])
        #expect(!files.isEmpty, "no scenarios in Tests/fidelity")
        let limits = LuaLimits.wideDeadline  // the suite is about the platform, not the deadline
        let run = await TestRun.run(files, filter: nil) { url throws(PolicyError) in try LuaPolicy.load(contentsOf: url, limits: limits) }
        #expect(run.reports.count == files.count)
        for report in run.reports {
            var why = "\(report.verdict)"
            if case .ran(let result) = report.verdict {
                why = result.steps.flatMap { step in step.failures.map { "step \(step.number): \($0)" } }.joined(separator: "; ")
            }
            #expect(report.passed, "\(report.file.displayPath): \(why)")
        }
    }

    @Test func platformTableRuleIdsAreTheScenariosClaims() throws {
        let documented = try Self.documentedRuleIds()
        var claimed: [String: [String]] = [:]
        for file in try Discovery.scenarios(under: [Self.suite.path]) {
            let ids = Self.claimedRuleIds(in: try String(contentsOf: file.url, encoding: .utf8))
            #expect(!ids.isEmpty, "\(file.url.lastPathComponent) claims no rule (add `# rule: X-NN`)")
            for id in ids { claimed[id, default: []].append(file.url.lastPathComponent) }
        }
        #expect(Set(documented) == Set(claimed.keys), "docs/platform.md: \(documented.sorted()); scenarios: \(claimed.keys.sorted())")
        #expect(documented.count == Set(documented).count, "a rule id appears twice in docs/platform.md")
        // Each row names the scenario that claims its rule.
        let text = try String(contentsOf: Self.platformDoc, encoding: .utf8)
        for (id, files) in claimed {
            let row = text.split(separator: "\n").first { $0.hasPrefix("| \(id) |") }
            #expect(files.allSatisfy { row?.contains($0) == true }, "the \(id) row does not name \(files)")
        }
    }

    /// The ids in the first column of docs/platform.md's rule table.
    static func documentedRuleIds() throws -> [String] {
        let text = try String(contentsOf: platformDoc, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let match = line.prefixMatch(of: /\| ([A-Z]+-\d{2}) \|/) else { return nil }
            return String(match.1)
        }
    }

    /// The ids of `# rule: R-01, P-02` comment lines.
    static func claimedRuleIds(in text: String) -> [String] {
        text.split(separator: "\n").flatMap { line -> [String] in
            guard let match = line.wholeMatch(of: /# rule: *(.+)/) else { return [] }
            return match.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }
}
