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
        /// The policy did not load. One report stands for every scenario of that policy
        /// (`scenarios` of them), so a syntax error reads once, not once per scenario (exit 2).
        case policyFailed(PolicyError, policy: String, scenarios: Int)
        /// The scenario file itself is wrong (exit 2).
        case inputError(InputError)
        /// `skip: "why"`: parsed, not run.
        case skipped(String)
    }

    /// The file.
    public var file: ScenarioFile
    /// The scenario's name.
    public var name: String
    /// How it fared.
    public var verdict: Verdict
    /// The policy's line coverage after this scenario, when it was recorded.
    public var coverage: LineCoverage?
    /// Which `return`s of `decide` answered in this scenario, when coverage was recorded.
    public var decisions: DecisionCoverage?
    /// How long the scenario took to load its policy and run (JUnit's `time`), when it ran.
    public var duration: Duration?
    /// Its golden timeline under `--snapshot`.
    public var snapshot: GoldenTimeline.Outcome?

    /// Whether it ran and passed, its snapshot included.
    public var passed: Bool {
        if case .ran(let result) = verdict { return result.passed && !(snapshot?.failed ?? false) }
        return false
    }

    /// Whether the file, or the policy it runs, is wrong: fix the input, not the expectations (exit 2).
    public var isInputError: Bool {
        switch verdict {
        case .inputError, .policyFailed: return true
        case .ran, .skipped: return false
        }
    }

    /// Whether the scenario was skipped on purpose.
    public var isSkipped: Bool {
        if case .skipped = verdict { return true }
        return false
    }
}

/// `permit test`: discovers scenarios, runs each against its policy, collects the reports.
public struct TestRun: Sendable {
    /// What to run beyond the files themselves: the knobs of `permit test`.
    public struct Options: Sendable {
        /// Keeps the scenarios whose path or name contains it (case-insensitive); `nil` keeps all.
        public var filter: String?
        /// Stop at the first scenario that fails or errs; the rest are counted in `notRun`.
        public var failFast: Bool
        /// `--ci`: an `only: true` is an input error, so a focused run cannot pass CI.
        public var refuseOnly: Bool
        /// `--snapshot`: compare each timeline with its golden file, or rewrite them; `nil` leaves them alone.
        public var snapshots: GoldenTimeline.Mode?

        /// Options; the defaults run everything.
        public init(
            filter: String? = nil, failFast: Bool = false, refuseOnly: Bool = false, snapshots: GoldenTimeline.Mode? = nil
        ) {
            self.filter = filter
            self.failFast = failFast
            self.refuseOnly = refuseOnly
            self.snapshots = snapshots
        }
    }

    /// One report per scenario file, in discovery order.
    public var reports: [ScenarioReport]
    /// Selected scenarios that `--fail-fast` left unrun.
    public var notRun = 0
    /// How many scenarios `only: true` left out.
    public var leftOutByOnly = 0

    /// Scenarios that passed.
    public var passedCount: Int { reports.filter(\.passed).count }
    /// Scenarios that ran and did not pass.
    public var failedCount: Int { reports.count - passedCount - inputErrorCount - skippedCount }
    /// Scenarios skipped with `skip:`.
    public var skippedCount: Int { reports.filter(\.isSkipped).count }
    /// Scenario files that could not be read, and policies that did not load; they make the exit code 2.
    public var inputErrorCount: Int { reports.filter(\.isInputError).count }
    /// Whether any input was wrong (exit 2, not 1: fix the file, not the policy).
    public var hasInputErrors: Bool { reports.contains(where: \.isInputError) }

    /// Line coverage per policy file over every scenario that ran it, by file name.
    public var coverage: [LineCoverage] {
        var byFile: [String: LineCoverage] = [:]
        for case let coverage? in reports.map(\.coverage) {
            byFile[coverage.file] = byFile[coverage.file].map { $0.merged(with: coverage) } ?? coverage
        }
        return byFile.values.sorted { $0.file < $1.file }
    }

    /// Which `return`s of `decide` answered, per policy file over every scenario that ran it.
    public var decisionCoverage: [DecisionCoverage] {
        var byFile: [String: DecisionCoverage] = [:]
        for case let decisions? in reports.map(\.decisions) {
            byFile[decisions.file] = byFile[decisions.file].map { $0.merged(with: decisions) } ?? decisions
        }
        return byFile.values.sorted { $0.file < $1.file }
    }

    /// The answers of `decide` a guardrail voided (the policy proposed them, the app got
    /// another decision), by action and reason (`soft_prompt|first ask`), each with the
    /// guardrails and how often: coverage marks them, since the `return` answered but no user
    /// saw its decision.
    public var voidedAnswers: [String: [String: Int]] {
        var voided: [String: [String: Int]] = [:]
        for report in reports {
            guard case .ran(let result) = report.verdict else { continue }
            for outcome in result.steps.flatMap({ $0.earlierOutcomes + ($0.outcome.map { [$0] } ?? []) }) {
                guard let proposed = outcome.proposed, let guardrail = outcome.warnings.first?.name,
                    proposed.action.name != outcome.decision.action.name
                else { continue }
                voided[Self.answerKey(action: proposed.action.name, reason: proposed.reason), default: [:]][guardrail, default: 0] += 1
            }
        }
        return voided
    }

    /// `voidedAnswers`' key of an answer.
    public static func answerKey(action: String, reason: String?) -> String { action + "|" + (reason ?? "") }

    /// Snapshots `--snapshot --update` wrote.
    public var snapshotsWritten: Int {
        reports.filter { if case .written? = $0.snapshot { true } else { false } }.count
    }

    /// docs/reference/cli.md#exit-codes: 0 all pass, 1 a failure, 2 bad input.
    public var exitCode: Int32 { hasInputErrors ? 2 : failedCount > 0 ? 1 : 0 }

    /// Runs `files` (after `filter`, a case-insensitive piece of the path or scenario name).
    public static func run(
        _ files: [ScenarioFile], filter: String?, loader: @escaping PolicyLoader, delivery: (any PolicyDelivery)? = nil
    ) async -> TestRun {
        await run(files, options: Options(filter: filter), loader: loader, delivery: delivery)
    }

    /// Runs `files` as `options` select them.
    ///
    /// Every file is parsed before any runs, because one `only: true` anywhere changes what
    /// the whole run selects, and `--fail-fast` must say how many did not run.
    ///
    /// - Parameters:
    ///   - files: the scenario files, as `Discovery` found them.
    ///   - options: filter, `--fail-fast`, `--ci`.
    ///   - loader: loads the policy each scenario runs (a pack's, or the one it names).
    ///   - delivery: how `policy_update` steps install bundles (see `ScenarioRunner`).
    public static func run(
        _ files: [ScenarioFile], options: Options, loader: @escaping PolicyLoader, delivery: (any PolicyDelivery)? = nil
    ) async -> TestRun {
        let selected = select(files, options: options)
        var testRun = TestRun(reports: [], leftOutByOnly: selected.leftOutByOnly)
        var failedPolicies: [URL: Int] = [:]
        for (index, item) in selected.items.enumerated() {
            switch item {
            case .report(let report):
                testRun.reports.append(report)
            case .scenario(let scenario, let file):
                if let reason = scenario.skipReason {
                    testRun.reports.append(ScenarioReport(file: file, name: scenario.name, verdict: .skipped(reason)))
                    continue
                }
                if let policyURL = scenario.policy ?? file.packPolicy, let reportIndex = failedPolicies[policyURL],
                    case .policyFailed(let error, let policy, let count) = testRun.reports[reportIndex].verdict
                {
                    testRun.reports[reportIndex].verdict = .policyFailed(error, policy: policy, scenarios: count + 1)
                    continue
                }
                let clock = ContinuousClock()
                let started = clock.now
                var report = await Self.run(scenario, file: file, loader: loader, delivery: delivery)
                report.duration = clock.now - started
                if let mode = options.snapshots, case .ran(let result) = report.verdict,
                    mode != .checkStored
                        || FileManager.default.fileExists(atPath: GoldenTimeline.url(for: file.url, case: scenario.matrixCase).path)
                {
                    report.snapshot = GoldenTimeline.apply(mode, to: result, file: file, case: scenario.matrixCase)
                }
                if case .policyFailed = report.verdict, let policyURL = scenario.policy ?? file.packPolicy {
                    failedPolicies[policyURL] = testRun.reports.count
                }
                testRun.reports.append(report)
            }
            if options.failFast, let last = testRun.reports.last, !last.passed, !last.isSkipped {
                testRun.notRun = selected.items.count - index - 1
                break
            }
        }
        return testRun
    }

    /// A selected file: parsed, or already a report (it could not be read, or `--ci` refused it).
    enum Selected {
        case scenario(Scenario, ScenarioFile)
        case report(ScenarioReport)
    }

    /// Applies the filter, `file:line` and `only`, in discovery order.
    static func select(_ files: [ScenarioFile], options: Options) -> (items: [Selected], leftOutByOnly: Int) {
        let filter = options.filter?.lowercased()
        var items: [Selected] = []
        for file in files {
            let cases: [Scenario]
            do {
                cases = try ScenarioParser.parseCases(contentsOf: file.url, displayName: file.displayPath)
                if let line = file.line { try checkLine(line, of: file) }
            } catch {
                if let filter, !file.displayPath.lowercased().contains(filter) { continue }
                items.append(.report(ScenarioReport(file: file, name: file.displayPath, verdict: .inputError(error))))
                continue
            }
            // A matrix's cases run as scenarios of their own: the filter, `only` and `skip` apply to each.
            for scenario in cases {
                if let filter, !(file.displayPath + " " + scenario.name).lowercased().contains(filter) { continue }
                if options.refuseOnly, scenario.only, let location = scenario.onlyLocation {
                    items.append(
                        .report(
                            ScenarioReport(
                                file: file, name: scenario.name,
                                verdict: .inputError(
                                    InputError(
                                        "not allowed with --ci: it runs the focused scenarios and leaves the others out", at: location,
                                        field: "only", hint: "remove `only: true` before committing")))))
                    continue
                }
                items.append(.scenario(scenario, file))
            }
        }
        let focused = items.filter { if case .scenario(let scenario, _) = $0 { scenario.only } else { false } }
        guard !focused.isEmpty else { return (items, 0) }
        let kept = items.filter {
            switch $0 {
            case .scenario(let scenario, _): scenario.only
            case .report: true
            }
        }
        return (kept, items.count - kept.count)
    }

    /// `file:line` names the file's scenario when the line lies within the file.
    static func checkLine(_ line: Int, of file: ScenarioFile) throws(InputError) {
        let text = (try? String(contentsOf: file.url, encoding: .utf8)) ?? ""
        var lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
        if text.hasSuffix("\n") { lineCount -= 1 }
        guard (1...max(lineCount, 1)).contains(line) else {
            throw InputError(
                "\(file.displayPath):\(line): no scenario at line \(line); the file has \(lineCount) line\(lineCount == 1 ? "" : "s")",
                hint: "a file holds one scenario: give a line from 1 to \(lineCount), or the file alone")
        }
    }

    static func run(
        _ scenario: Scenario, file: ScenarioFile, loader: @escaping PolicyLoader, delivery: (any PolicyDelivery)?
    ) async -> ScenarioReport {
        guard let policyURL = scenario.policy ?? file.packPolicy else {
            return ScenarioReport(
                file: file, name: scenario.name,
                verdict: .inputError(
                    InputError(
                        "the scenario names no policy and is not in a pack",
                        at: SourceLocation(file: file.displayPath, line: 1, column: 1),
                        hint: "add `policy: path/to/policy.lua`, or put the file in <pack>/tests/")))
        }
        guard FileManager.default.fileExists(atPath: policyURL.path) else {
            return ScenarioReport(
                file: file, name: scenario.name,
                verdict: .inputError(
                    InputError(
                        "policy \(policyURL.path) does not exist", at: SourceLocation(file: file.displayPath, line: 1, column: 1),
                        field: "policy", hint: "policy paths are relative to the scenario file")))
        }
        let policy: any Policy
        do {
            policy = try loader(policyURL)
        } catch {
            // Named after the policy: the report stands for all of its scenarios, not the first.
            let policyPath = Discovery.displayPath(of: policyURL)
            return ScenarioReport(file: file, name: policyPath, verdict: .policyFailed(error, policy: policyPath, scenarios: 1))
        }
        // Each cold launch loads the policy again; the coverage is that of every process.
        let relaunched = Locked<[any Policy]>([])
        let relaunch: PolicyFactory = { () throws(PolicyError) -> any Policy in
            let policy = try loader(policyURL)
            relaunched.withLock { $0.append(policy) }
            return policy
        }
        do {
            let result = try await ScenarioRunner(policy: policy, relaunch: relaunch, delivery: delivery).run(scenario)
            let processes = [policy] + relaunched.current
            return ScenarioReport(
                file: file, name: scenario.name, verdict: .ran(result),
                coverage: merged(processes.compactMap { ($0 as? any LineCoverageReporting)?.lineCoverage }) { $0.merged(with: $1) },
                decisions: merged(processes.compactMap { ($0 as? any DecisionCoverageReporting)?.decisionCoverage }) {
                    $0.merged(with: $1)
                })
        } catch {
            return ScenarioReport(file: file, name: scenario.name, verdict: .inputError(error))
        }
    }

    /// The coverage of several processes as one, or nil when none recorded any.
    private static func merged<Coverage>(_ parts: [Coverage], _ merge: (Coverage, Coverage) -> Coverage) -> Coverage? {
        guard let first = parts.first else { return nil }
        return parts.dropFirst().reduce(first, merge)
    }
}
