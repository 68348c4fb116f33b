import Foundation
import PermitCore
import PermitInput

/// Loads the policy a scenario names. The Lua runtime provides the real one; tests may pass
/// Swift policies.
public typealias PolicyLoader = @Sendable (URL) throws(PolicyError) -> any Policy

/// The outcome of one scenario file in a test run.
public struct ScenarioReport: Sendable {
    /// How the file fared.
    public enum Verdict: Sendable {
        /// It ran; the result says whether it passed.
        case ran(ScenarioResult)
        /// The policy did not load: every step fails with this error.
        case policyFailed(PolicyError)
        /// The scenario file itself is wrong (exit 2).
        case inputError(InputError)
    }

    /// The file.
    public var file: ScenarioFile
    /// The scenario's name.
    public var name: String
    /// How it fared.
    public var verdict: Verdict
    /// The policy's line coverage after this scenario, when it was recorded.
    public var coverage: LineCoverage?

    /// Whether it ran and passed.
    public var passed: Bool {
        if case .ran(let result) = verdict { return result.passed }
        return false
    }

    /// Whether the file itself was wrong.
    public var isInputError: Bool {
        if case .inputError = verdict { return true }
        return false
    }
}

/// `permit test`: discovers scenarios, runs each against its policy, collects the reports.
public struct TestRun: Sendable {
    /// One report per scenario file, in discovery order.
    public var reports: [ScenarioReport]

    /// Scenarios that passed.
    public var passedCount: Int { reports.filter(\.passed).count }
    /// Scenarios that ran (or whose policy failed to load) and did not pass.
    public var failedCount: Int { reports.count - passedCount - inputErrorCount }
    /// Scenario files that could not be read; they make the exit code 2.
    public var inputErrorCount: Int { reports.filter(\.isInputError).count }
    /// Whether any file was wrong (exit 2, not 1: fix the file, not the policy).
    public var hasInputErrors: Bool { reports.contains(where: \.isInputError) }

    /// Line coverage per policy file over every scenario that ran it, by file name.
    public var coverage: [LineCoverage] {
        var byFile: [String: LineCoverage] = [:]
        for case let coverage? in reports.map(\.coverage) {
            byFile[coverage.file] = byFile[coverage.file].map { $0.merged(with: coverage) } ?? coverage
        }
        return byFile.values.sorted { $0.file < $1.file }
    }

    /// docs/reference.md#exit-codes: 0 all pass, 1 a failure, 2 bad input.
    public var exitCode: Int32 { hasInputErrors ? 2 : failedCount > 0 ? 1 : 0 }

    /// Runs `files` (after `filter`, a case-insensitive piece of the path or scenario name).
    ///
    /// - Parameters:
    ///   - files: the scenario files, as `Discovery` found them.
    ///   - filter: keeps the files whose path or scenario name contains it; `nil` keeps all.
    ///   - loader: loads the policy each scenario runs (a pack's, or the one it names).
    ///   - delivery: how `policy_update` steps install bundles (see `ScenarioRunner`).
    public static func run(
        _ files: [ScenarioFile], filter: String?, loader: PolicyLoader, delivery: (any PolicyDelivery)? = nil
    ) async -> TestRun {
        var reports: [ScenarioReport] = []
        for file in files {
            let scenario: Scenario
            do {
                scenario = try ScenarioParser.parse(contentsOf: file.url, displayName: file.displayPath)
            } catch {
                if let filter, !file.displayPath.lowercased().contains(filter.lowercased()) { continue }
                reports.append(ScenarioReport(file: file, name: file.displayPath, verdict: .inputError(error)))
                continue
            }
            if let filter, !(file.displayPath + " " + scenario.name).lowercased().contains(filter.lowercased()) {
                continue
            }
            reports.append(await run(scenario, file: file, loader: loader, delivery: delivery))
        }
        return TestRun(reports: reports)
    }

    static func run(
        _ scenario: Scenario, file: ScenarioFile, loader: PolicyLoader, delivery: (any PolicyDelivery)?
    ) async -> ScenarioReport {
        guard let policyURL = scenario.policy ?? file.packPolicy else {
            return ScenarioReport(file: file, name: scenario.name, verdict: .inputError(InputError(
                "the scenario names no policy and is not in a pack",
                at: SourceLocation(file: file.displayPath, line: 1, column: 1),
                hint: "add `policy: path/to/policy.lua`, or put the file in <pack>/tests/")))
        }
        guard FileManager.default.fileExists(atPath: policyURL.path) else {
            return ScenarioReport(file: file, name: scenario.name, verdict: .inputError(InputError(
                "policy \(policyURL.path) does not exist", at: SourceLocation(file: file.displayPath, line: 1, column: 1),
                field: "policy", hint: "policy paths are relative to the scenario file")))
        }
        let policy: any Policy
        do {
            policy = try loader(policyURL)
        } catch {
            return ScenarioReport(file: file, name: scenario.name, verdict: .policyFailed(error))
        }
        do {
            let result = try await ScenarioRunner(policy: policy, delivery: delivery).run(scenario)
            return ScenarioReport(
                file: file, name: scenario.name, verdict: .ran(result),
                coverage: (policy as? any LineCoverageReporting)?.lineCoverage)
        } catch {
            return ScenarioReport(file: file, name: scenario.name, verdict: .inputError(error))
        }
    }
}
