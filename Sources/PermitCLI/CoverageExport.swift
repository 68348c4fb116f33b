import Foundation
import PermitCore
import PermitInput
import PermitScenario

/// `--coverage-format lcov|cobertura`: the run's coverage in the formats CI services read
/// (Codecov, GitLab, Coveralls). Lines are counted per scenario: a line's hits are the number
/// of scenarios that ran it. Each `return` of `decide` is a branch: taken as often as a call
/// ended there (docs/reference/cli.md#coverage).
public enum CoverageExport {
    /// The formats.
    public enum Format: String, Sendable, CaseIterable {
        /// The test report's own summary only.
        case text
        /// LCOV tracefile (`lcov.info`).
        case lcov
        /// Cobertura XML (`coverage.xml`).
        case cobertura

        /// The file written when `--coverage-output` is not given; `nil` for text.
        public var defaultOutput: String? {
            switch self {
            case .text: nil
            case .lcov: "lcov.info"
            case .cobertura: "coverage.xml"
            }
        }
    }

    /// One policy file's figures, merged over the run.
    struct FileFigures {
        var file: String
        /// Scenarios that ran each executable line (0 for lines with code that never ran).
        var hits: [Int: Int]
        var decisions: DecisionCoverage?

        var linesFound: Int { hits.count }
        var linesHit: Int { hits.values.filter { $0 > 0 }.count }
        var branchesFound: Int { decisions?.returnLines.count ?? 0 }
        var branchesHit: Int { decisions?.reachedReturnCount ?? 0 }

        /// Calls of `decide` that ended at each `return` line.
        var taken: [Int: Int] {
            var taken: [Int: Int] = [:]
            for (answer, count) in decisions?.counts ?? [:] { taken[answer.line, default: 0] += count }
            return taken
        }
    }

    /// The run's policies, in file order.
    static func figures(of run: TestRun) -> [FileFigures] {
        var byFile: [String: FileFigures] = [:]
        for report in run.reports {
            guard let coverage = report.coverage else { continue }
            var figures = byFile[coverage.file] ?? FileFigures(file: coverage.file, hits: [:])
            for line in coverage.executable { figures.hits[line, default: 0] += coverage.covered.contains(line) ? 1 : 0 }
            byFile[coverage.file] = figures
        }
        for decisions in run.decisionCoverage { byFile[decisions.file]?.decisions = decisions }
        return byFile.values.sorted { $0.file < $1.file }
    }

    /// The LCOV tracefile: one record per policy, `SF`, `DA`, `BRDA`, `BRF`/`BRH`, `LF`/`LH`,
    /// `end_of_record` (see the `geninfo` manual's "TRACEFILE FORMAT").
    public static func lcov(_ run: TestRun) -> String {
        var out: [String] = []
        for file in figures(of: run) {
            out.append("TN:")
            out.append("SF:\(file.file)")
            for (line, count) in file.hits.sorted(by: { $0.key < $1.key }) { out.append("DA:\(line),\(count)") }
            let taken = file.taken
            for (index, line) in (file.decisions?.returnLines ?? []).enumerated() {
                // `-`: the line never ran; 0: it ran, but no call returned there.
                let count = taken[line].map(String.init) ?? ((file.hits[line] ?? 0) > 0 ? "0" : "-")
                out.append("BRDA:\(line),0,\(index),\(count)")
            }
            out.append("BRF:\(file.branchesFound)")
            out.append("BRH:\(file.branchesHit)")
            out.append("LF:\(file.linesFound)")
            out.append("LH:\(file.linesHit)")
            out.append("end_of_record")
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Cobertura XML (coverage-04.dtd): one package per policy directory, one class per policy
    /// file, its lines with hits; the `return` lines of `decide` are branch lines.
    public static func cobertura(_ run: TestRun, sourceRoot: String, timestamp: Int64) -> String {
        let files = figures(of: run)
        let lines = files.reduce((0, 0)) { ($0.0 + $1.linesHit, $0.1 + $1.linesFound) }
        let branches = files.reduce((0, 0)) { ($0.0 + $1.branchesHit, $0.1 + $1.branchesFound) }
        var out = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">",
            "<coverage line-rate=\"\(rate(lines))\" branch-rate=\"\(rate(branches))\" lines-covered=\"\(lines.0)\" "
                + "lines-valid=\"\(lines.1)\" branches-covered=\"\(branches.0)\" branches-valid=\"\(branches.1)\" "
                + "complexity=\"0\" version=\"permit\" timestamp=\"\(timestamp)\">",
            "  <sources>",
            "    <source>\(MarkupText.escaped(sourceRoot))</source>",
            "  </sources>",
            "  <packages>",
        ]
        let packages = Dictionary(grouping: files) { ($0.file as NSString).deletingLastPathComponent }
        for (package, members) in packages.sorted(by: { $0.key < $1.key }) {
            let packageLines = members.reduce((0, 0)) { ($0.0 + $1.linesHit, $0.1 + $1.linesFound) }
            let packageBranches = members.reduce((0, 0)) { ($0.0 + $1.branchesHit, $0.1 + $1.branchesFound) }
            out.append(
                "    <package name=\"\(MarkupText.escaped(package.isEmpty ? "." : package))\" "
                    + "line-rate=\"\(rate(packageLines))\" branch-rate=\"\(rate(packageBranches))\" complexity=\"0\">")
            out.append("      <classes>")
            for file in members { out += cobertura(file) }
            out.append("      </classes>")
            out.append("    </package>")
        }
        out += ["  </packages>", "</coverage>"]
        return out.joined(separator: "\n") + "\n"
    }

    /// One `<class>`: a policy file and its lines.
    static func cobertura(_ file: FileFigures) -> [String] {
        let name = MarkupText.escaped(file.file)
        var out = [
            "        <class name=\"\(name)\" filename=\"\(name)\" line-rate=\"\(rate((file.linesHit, file.linesFound)))\" "
                + "branch-rate=\"\(rate((file.branchesHit, file.branchesFound)))\" complexity=\"0\">",
            "          <methods/>",
            "          <lines>",
        ]
        let taken = file.taken
        let returns = Set(file.decisions?.returnLines ?? [])
        for (line, count) in file.hits.sorted(by: { $0.key < $1.key }) {
            if returns.contains(line) {
                let reached = taken[line] != nil ? 1 : 0
                out.append(
                    "            <line number=\"\(line)\" hits=\"\(count)\" branch=\"true\" "
                        + "condition-coverage=\"\(reached * 100)% (\(reached)/1)\"/>")
            } else {
                out.append("            <line number=\"\(line)\" hits=\"\(count)\" branch=\"false\"/>")
            }
        }
        out += ["          </lines>", "        </class>"]
        return out
    }

    /// `covered / valid` as Cobertura writes it, 1 when there is nothing to cover.
    static func rate(_ figures: (covered: Int, valid: Int)) -> String {
        guard figures.valid > 0 else { return "1" }
        return String(format: "%.4f", Double(figures.covered) / Double(figures.valid))
    }
}
