import Foundation
import PermitCore
import PermitDelivery
import PermitInput
import PermitLua
import PermitScenario

/// The pack's checks on a copy holding the edited text: loading it, its scenarios, one
/// scenario's timeline. The same calls as `permit check` and `permit test` (LuaPolicy with its
/// limits and deadline, TestRun, ScenarioRunner), so the page says what the terminal would.
struct PackEvaluation: Sendable {
    /// The copy of the pack to evaluate.
    let root: URL
    let pack: URL
    /// The sandbox's limits for every policy loaded.
    let limits: LuaLimits

    init(_ copy: ShadowPacks.Copy, limits: LuaLimits) {
        root = copy.root
        pack = copy.pack
        self.limits = limits
    }

    var policyURL: URL { pack.appendingPathComponent("policy.lua") }

    /// Runs `body` with paths shown relative to the copy's parent (`polite/tests/first.yaml`).
    func shown<T>(_ body: () async throws -> T) async rethrows -> T {
        try await WorkingDirectory.$bound.withValue(root) { try await body() }
    }

    /// The loader `permit test` uses: one fresh VM per scenario, with the pack's copy.
    var loader: PolicyLoader {
        let limits = limits
        return { url throws(PolicyError) in
            try LuaPolicy.load(
                contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limits, copy: try Self.copy(besidePolicy: url))
        }
    }

    /// The copy (`copy/<locale>.yaml`, edited ones included) of the pack whose policy is `url`,
    /// read as `permit test` reads it; a mistake in a copy file is a load error naming the
    /// file, line and key. Call it inside `shown`, so that the files are named from the pack.
    static func copy(besidePolicy url: URL) throws(PolicyError) -> PolicyCopy {
        do {
            return try CopyFiles.read(besidePolicy: url, shownPack: Discovery.displayPath(of: url.deletingLastPathComponent()))
        } catch {
            throw PolicyError(
                kind: .load, field: error.field, message: error.message + (error.hint.map { " (\($0))" } ?? ""),
                file: error.location?.file, line: error.location?.line)
        }
    }

    /// Whether the policy loads, with every problem `permit check` finds at load.
    func load() async -> PlaygroundReports.Load {
        await shown {
            let copy: PolicyCopy
            do throws(PolicyError) { copy = try Self.copy(besidePolicy: policyURL) } catch {
                return PlaygroundReports.Load(
                    name: nil, problems: [PlaygroundReports.Problem(message: error.description, file: error.file, line: error.line)],
                    locales: [], events: [])
            }
            let (policy, problems) = LuaPolicy.check(
                contentsOf: policyURL, displayName: Discovery.displayPath(of: policyURL), limits: limits, copy: copy)
            return PlaygroundReports.Load(
                name: policy?.name,
                problems: problems.map { PlaygroundReports.Problem(message: $0.description, file: $0.file, line: $0.line) },
                locales: policy?.locales ?? [], events: policy?.declaredEvents ?? [])
        }
    }

    /// Every scenario of the pack, with `permit test`'s lines for each.
    func tests() async -> PlaygroundReports.Tests {
        let clock = ContinuousClock()
        let started = clock.now
        let load = await load()
        return await shown {
            let files: [ScenarioFile]
            do {
                files = try Discovery.scenarios(under: [pack.path])
            } catch {
                return PlaygroundReports.Tests(
                    load: load, scenarios: [], summary: "the scenarios could not be found: \(error)", milliseconds: 0)
            }
            let run = await TestRun.run(files, options: TestRun.Options(), loader: loader, delivery: BundleDelivery())
            let scenarios = run.reports.map { Self.row(for: $0, in: run) }
            let elapsed = clock.now - started
            return PlaygroundReports.Tests(
                load: load, scenarios: scenarios,
                summary: "\(run.passedCount) passed, \(run.failedCount) failed, \(run.skippedCount) skipped",
                milliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
    }

    /// Every decision the policy returned in the pack's scenarios, translations and all (what
    /// it proposed, before localisation and guardrails): texts the probes of `permit check`
    /// never meet, such as a settings prompt after days of back-off, are in them.
    func scenarioDecisions() async -> [Decision] {
        await shown {
            guard let files = try? Discovery.scenarios(under: [pack.path]) else { return [] }
            let run = await TestRun.run(files, options: TestRun.Options(), loader: loader, delivery: BundleDelivery())
            var decisions: [Decision] = []
            for report in run.reports {
                guard case .ran(let result) = report.verdict else { continue }
                for case let outcome? in result.steps.map(\.outcome) {
                    decisions += ([outcome] + outcome.followUps).compactMap(\.proposed)
                }
            }
            return decisions
        }
    }

    /// One report as a row: its verdict and `permit test`'s lines for it (without the summary).
    static func row(for report: ScenarioReport, in run: TestRun) -> PlaygroundReports.Scenario {
        var single = run
        single.reports = [report]
        single.notRun = 0
        single.leftOutByOnly = 0
        let text = TextReport(verbose: false, colour: false).render(single)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.map(String.init)
        let verdict: String
        var failed: [SourceLocation] = []
        switch report.verdict {
        case .ran(let result):
            verdict = report.passed ? "pass" : "fail"
            failed = result.failedSteps.map(\.location)
        case .skipped: verdict = "skip"
        case .inputError(let error):
            verdict = "error"
            failed = error.location.map { [$0] } ?? []
        case .policyFailed: verdict = "error"
        }
        let file = report.file.displayPath
        let inPack = file.split(separator: "/").dropFirst().joined(separator: "/")
        return PlaygroundReports.Scenario(
            id: inPack + "::" + report.name, file: file, name: report.name, verdict: verdict, lines: lines,
            failedLines: failed.filter { $0.file == file }.map(\.line),
            failedSteps: failed.map { PlaygroundReports.Place(file: $0.file, line: $0.line) })
    }

    /// The scenario `id` names (`tests/first.yaml::name`), its device in `locale` when given,
    /// played step by step.
    func timeline(_ id: String, locale: String?) async -> PlaygroundReports.Timeline {
        await shown {
            let parts = id.components(separatedBy: "::")
            let name = parts.dropFirst().joined(separator: "::")
            var problem: String?
            guard parts.count >= 2, let file = try? PackFolder.scenarioFile(parts[0], in: pack) else {
                return PlaygroundReports.Timeline(name: name, locale: locale ?? "", steps: [], problem: "no scenario \(id)")
            }
            do {
                let cases = try ScenarioParser.parseCases(contentsOf: file, displayName: Discovery.displayPath(of: file))
                guard var scenario = cases.first(where: { $0.name == name }) else {
                    return PlaygroundReports.Timeline(name: name, locale: locale ?? "", steps: [], problem: "no scenario \(id)")
                }
                if let locale, !locale.isEmpty { scenario.device.locale = locale }
                let policyURL = scenario.policy ?? self.policyURL
                let loader = self.loader
                let runner = ScenarioRunner(
                    policy: try loader(policyURL), relaunch: { () throws(PolicyError) -> any Policy in try loader(policyURL) },
                    delivery: BundleDelivery())
                let result = try await runner.run(scenario)
                let formatter = TimelineFormatter(fitting: result)
                let steps = TimelineStep.steps(result.steps, formatter: formatter, locale: scenario.device.locale)
                return PlaygroundReports.Timeline(name: name, locale: scenario.device.locale, steps: steps, problem: nil)
            } catch let error as InputError {
                problem = error.description
            } catch let error as PolicyError {
                problem = error.description
            } catch {
                problem = "\(error)"
            }
            return PlaygroundReports.Timeline(name: name, locale: locale ?? "", steps: [], problem: problem)
        }
    }
}

extension PackFolder {
    /// A scenario file of the pack (`tests/first.yaml`), refusing any path that leaves `tests/`.
    static func scenarioFile(_ path: String, in pack: URL) throws(PathError) -> URL {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "tests", !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
            path.hasSuffix(".yaml") || path.hasSuffix(".yml")
        else {
            throw PathError(description: "\(path): not a scenario file of the pack")
        }
        return pack.appendingPathComponent(path)
    }
}
