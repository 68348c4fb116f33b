import ArgumentParser
import Foundation
import PermitCore
import PermitScenario
import PermitSimulation

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a simulated user population through policies and compare them.",
        discussion: """
            Each policy meets the same users (iOS version, locale, A/B bucket), drawn from the \
            model file, for the given number of days, through the real engine and the simulated \
            device. Users run in parallel on all cores; the result is the same for a seed whatever \
            the number of cores. The model file's format is in docs/reference/model.md.

            Examples:
              permit simulate policies/polite --model examples/models/default.yaml
              permit simulate policies/polite policies/provisional-first --model examples/models/default.yaml \\
                  --users 100000 --days 30 --report comparison.html
              permit simulate policies/polite --model examples/models/default.yaml --seed 7 --format json
              permit simulate policies/polite policies/provisional-first --model examples/models/default.yaml \\
                  --param polite:max_soft_prompts=1 --param 'quiet_hours=[22,8]'
              permit simulate policies/polite --model examples/models/default.yaml --users 20000 \\
                  --sweep 'settings_backoff_days=[1,7,30],[3,7,30],[7,14,60]' --sweep max_soft_prompts=1,2,3 \\
                  --objective reach_day_30 --constraint 'uninstalls<=2%'

              permit simulate policies/polite --model examples/models/default.yaml --records records.jsonl
                  (then: permit fit records.jsonl --out fitted.yaml)

            A policy that declares experiments is also reported per arm, with the same intervals.

            The intervals cover the randomness of the simulated users on this model only. \
            --sensitivity N runs the comparison again on N models drawn from the ranges of the \
            model's uncertain figures (N + 1 simulations in all, so N + 1 times the time) and \
            says whether each verdict holds or depends on an assumption:
              permit simulate policies/polite policies/provisional-first --model examples/models/default.yaml \\
                  --users 5000 --sensitivity 20
            With --sweep and --objective it says how often the best setting stays best on the drawn models:
              permit simulate policies/polite --model examples/models/default.yaml --users 2000 \\
                  --sweep max_soft_prompts=1,2,3 --objective reach_day_30 --sensitivity 20
            """)

    @Argument(help: "Policy files, or pack directories holding policy.lua.")
    var policies: [String] = []

    @Option(help: "The user-model file (YAML; see docs/reference/model.md).")
    var model: String

    @Option(help: "Simulated users per policy (default 10000).")
    var users: Int?

    @Option(help: "Pick the users for this 95% interval half-width on every share, e.g. 0.5pp (instead of --users).")
    var precision: String?

    @Option(help: "Days each user is simulated for.")
    var days = 30

    @Option(help: "Seed of the random draws; the same seed gives the same result.")
    var seed: UInt64 = 1

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Option(
        name: .customLong("param"),
        help:
            "Override a param: --param polite:max_soft_prompts=1 for one policy (its name or path), --param key=value for every policy that declares it (repeatable); lists and tables in JSON."
    )
    var params: [String] = []

    @Option(
        help:
            "Sweep a param of the one policy over values: --sweep max_soft_prompts=1,2,3 or --sweep 'backoff=[1,7],[3,7]' (repeatable; every combination runs on the same users; at most 64)."
    )
    var sweep: [String] = []

    @Option(
        help:
            "With --sweep: the metric to maximise (reach_day_N, quiet_day_N, ephemeral_day_N) or minimise (denied_day_N, never_asked_day_N, uninstalls); marks the best setting."
    )
    var objective: String?

    @Option(
        name: .customLong("constraint"),
        help: "With --sweep: a bound the best setting must meet, metric<=N% or metric>=N%, e.g. uninstalls<=2% (repeatable).")
    var constraints: [String] = []

    @Option(
        help:
            "With --objective: run the grid again on N fresh seeds to confirm the best setting on users it was not chosen on (0 to skip; each costs one more sweep)."
    )
    var confirm = 2

    @Option(
        help:
            "Also write a self-contained HTML page charting, per policy, who can receive alerts and who gets quiet delivery (with --sweep: each figure against the params)."
    )
    var report: String?

    @Option(
        help:
            "The significance level of the live A/B test the report plans (two-sided, 80% power), e.g. 0.01; default 0.05.")
    var alpha: Double = LiveTestPlan.defaultAlpha

    @Flag(
        name: .customLong("all-pairs"),
        help:
            "Compare every pair of policies, not only each with the first: a table of pairs (JSON: \"pairs\"); the headline verdicts are Holm-corrected over all of them."
    )
    var allPairs = false

    @Option(
        help:
            "Also run the comparison on N models drawn from the ranges of the model's uncertain figures (each assumption has a default range; docs/simulate.md) and say, per comparison, whether its verdict holds and which figures it depends on (with --sweep and --objective: how often the best setting stays best). Costs N + 1 simulations (sweeps)."
    )
    var sensitivity: Int?

    @Option(
        help:
            "Also write the decision records the simulated apps would log, one JSON line per event (see docs/reference/cli.md#cli-simulate-records); one policy only. `permit fit` reads them."
    )
    var records: String?

    @OptionGroup var limitOptions: LimitOptions

    @Option(
        help: ArgumentHelp(
            "Parallel workers (default: the number of cores); the result does not depend on it.",
            visibility: .hidden))
    var workers: Int?

    func validate() throws {
        guard !policies.isEmpty else {
            throw ValidationError("give at least one policy, e.g. permit simulate policies/polite --model examples/models/default.yaml")
        }
        if let users, !(1...10_000_000).contains(users) { throw ValidationError("--users must be from 1 to 10000000") }
        if let precision {
            guard users == nil else { throw ValidationError("give --users or --precision, not both") }
            guard Precision(precision) != nil else {
                throw ValidationError("--precision takes percentage points from 0.01pp to 50pp, e.g. --precision 0.5pp; got '\(precision)'")
            }
        }
        guard alpha > 0, alpha < 0.5 else {
            throw ValidationError("--alpha is a significance level between 0 and 0.5, e.g. --alpha 0.05; got \(alpha)")
        }
        guard (1...3650).contains(days) else { throw ValidationError("--days must be from 1 to 3650") }
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
        if !sweep.isEmpty, policies.count != 1 {
            throw ValidationError("--sweep runs one policy over a grid of its params; give exactly one policy, not \(policies.count)")
        }
        guard (0...20).contains(confirm) else { throw ValidationError("--confirm must be from 0 to 20; got \(confirm)") }
        if !sweep.isEmpty, allPairs {
            throw ValidationError("--all-pairs compares the policies of a run; a --sweep reports its best setting against the runner-up")
        }
        if let sensitivity {
            guard (1...1000).contains(sensitivity) else {
                throw ValidationError("--sensitivity takes a number of drawn models from 1 to 1000, e.g. --sensitivity 20")
            }
            if !sweep.isEmpty {
                guard objective != nil else {
                    throw ValidationError(
                        "--sensitivity with --sweep says how often the best setting stays best on drawn models, and a sweep has a best setting only with an objective; add --objective, e.g. --objective reach_day_\(days)"
                    )
                }
            } else if policies.count < 2 {
                throw ValidationError(
                    "--sensitivity judges the comparisons of policies against the first; give at least two policies")
            }
        }
        if records != nil, policies.count != 1 || !sweep.isEmpty {
            throw ValidationError(
                "--records writes the records of one policy's users (the same simulated people live once per policy, so several policies' records would count each of them several times); give exactly one policy and no --sweep"
            )
        }
        if sweep.isEmpty, objective != nil || !constraints.isEmpty {
            throw ValidationError("--objective and --constraint choose among --sweep settings; add --sweep key=v1,v2")
        }
    }

    /// `--users`, or the count `--precision` needs, or 10,000. With experiments, `--precision`
    /// covers the smallest arm's shares too: a 10% arm needs about ten times the users.
    func userCount(for sources: [SimulationPolicy]) -> Int {
        guard let target = precision.flatMap(Precision.init) else { return users ?? 10_000 }
        guard let smallest = Self.smallestArm(of: sources) else { return target.users }
        return target.users(smallestArmShare: smallest.share)
    }

    /// The smallest arm of any experiment the policies declare, and its share of the users.
    static func smallestArm(of sources: [SimulationPolicy]) -> (name: String, share: Double)? {
        var smallest: (name: String, share: Double)?
        for experiment in sources.flatMap(\.experiments) {
            let total = experiment.arms.reduce(0) { $0 + $1.weight }
            for arm in experiment.arms where total > 0 {
                let share = Double(arm.weight) / Double(total)
                if smallest == nil || share < smallest!.share { smallest = ("\(experiment.name)=\(arm.name)", share) }
            }
        }
        return smallest
    }

    /// What `--precision` covered, said after the run: every share of every policy, and with
    /// experiments every share of every arm, with the widest arm's real half-width.
    func precisionNote(_ target: Precision, users: Int, sources: [SimulationPolicy], result: SimulationResult) -> String {
        var note = "\n\(users) users per policy for \(target) on every share (z²/4h², the worst case p = 50%)"
        guard let smallest = Self.smallestArm(of: sources) else { return note }
        let armUsers = result.policies.flatMap(\.arms).map(\.result.users)
        note += String(
            format: ", of every policy and of every arm: the smallest arm, %@ (%.0f%% of the users), needs %d of its own",
            smallest.name, smallest.share * 100, target.users)
        if let fewest = armUsers.min() {
            note += String(
                format: "; the smallest arm got %d, every one of its shares ±%.2f pp", fewest,
                Precision.halfWidth(users: fewest) * 100)
        }
        return note
    }

    /// The model and the policies (with `--param` applied), each mistake bad input.
    func loadInputs() throws -> (UserModel, [SimulationPolicy]) {
        let userModel: UserModel
        do {
            userModel = try UserModel.load(contentsOf: Terminal.file(model), displayName: model)
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
        var sources: [SimulationPolicy] = []
        for path in policies {
            let url = try policyURL(path)
            do {
                sources.append(
                    try SimulationPolicy.load(
                        contentsOf: url, displayName: Discovery.displayPath(of: url), limits: limitOptions.limits,
                        copy: try packCopy(besidePolicy: url)))
            } catch {
                Terminal.printError(error.description)
                throw Exit.badInput
            }
        }
        return (userModel, try applyParams(to: sources))
    }

    func run() async throws {
        let (userModel, sources) = try loadInputs()
        var inputs = [(label: "--model", path: model)]
        for path in policies { inputs.append((label: "the policy", path: try policyURL(path).path)) }
        try OutputPath.refuseInputs("--report", report, inputs: inputs)
        try OutputPath.refuseInputs("--records", records, inputs: inputs)
        let userCount = userCount(for: sources)
        if let target = precision.flatMap(Precision.init) {
            // Said before the run, not only after it: a tight target can mean millions of users,
            // and the user should see that while a Ctrl-C still saves the wait.
            Terminal.printError("--precision \(target): \(userCount) users per \(sweep.isEmpty ? "policy" : "setting")")
        }
        if !sweep.isEmpty { return try await runSweep(policy: sources[0], model: userModel, users: userCount) }
        let options = SimulationOptions(users: userCount, days: days, seed: seed, workers: workers)
        let bar = Console.current.isTerminal(.error) ? ProgressBar(console: .current) : nil
        let runs = 1 + (sensitivity ?? 0)
        let log: RecordLog?
        do {
            log = try records.map { path in try RecordLog(destination: Terminal.file(path).standardizedFileURL) }
        } catch {
            Terminal.printError("--records: cannot make a temporary directory: \(error.localizedDescription)")
            throw Exit.badInput
        }
        var result = await Simulation.run(policies: sources, model: userModel, options: options, records: log) { done, total in
            bar?.update(done: done, total: total * runs)
        }
        var drawn: SensitivityResult?
        if let sensitivity {
            let perRun = userCount * sources.count
            drawn = await Sensitivity.run(
                policies: sources, model: userModel, options: options, draws: sensitivity, base: result
            ) { done, total in bar?.update(done: perRun + done, total: perRun + total) }
        }
        result.alpha = alpha
        bar?.clear()
        do {
            try log?.finish(policies: sources.count, users: userCount)
        } catch {
            Terminal.printError("--records: \(error)")
            throw Exit.badInput
        }
        for warning in result.warnings { Terminal.printError("warning: \(warning)") }
        if let report {
            try writeAtomically(
                Data(HTMLReport.render(result, modelFile: model, allPairs: allPairs, sensitivity: drawn).utf8), to: report)
        }
        switch format {
        case .json:
            Terminal.say(result.json(allPairs: allPairs, adding: drawn.map { ["sensitivity": $0.jsonValue()] } ?? [:]))
        case .text:
            Terminal.say(result.text(allPairs: allPairs, sensitivity: drawn))
            if let target = precision.flatMap(Precision.init) {
                Terminal.say(precisionNote(target, users: userCount, sources: sources, result: result))
            }
            let elapsed = result.elapsedSeconds + (drawn?.draws.reduce(0) { $0 + $1.result.elapsedSeconds } ?? 0)
            Terminal.say(
                String(format: "\n%d simulated users in %.1f s", userCount * sources.count * runs, elapsed)
                    + (report.map { "; report written to \($0)" } ?? "") + (records.map { "; records written to \($0)" } ?? ""))
        }
    }
}

extension SimulateCommand {
    /// `--param [policy:]key=value`, each checked against the params of the policies it names
    /// (an unknown param is an error with a suggestion; a param for all must be declared by at
    /// least one of them, and goes to those that declare it).
    func applyParams(to sources: [SimulationPolicy]) throws -> [SimulationPolicy] {
        var overrides = Array(repeating: [String: PolicyValue](), count: sources.count)
        for param in params {
            guard let equals = param.firstIndex(of: "="), equals != param.startIndex else {
                Terminal.printError("--param \(param): write key=value or policy:key=value")
                throw Exit.badInput
            }
            var key = String(param[..<equals])
            let value: PolicyValue
            do {
                value = try ParamParsing.value(String(param[param.index(after: equals)...]))
            } catch {
                Terminal.printError("--param \(key): \(error.message)")
                throw Exit.badInput
            }
            var targets = Array(sources.indices)
            if let colon = key.lastIndex(of: ":") {
                let selector = String(key[..<colon])
                key = String(key[key.index(after: colon)...])
                targets = sources.indices.filter {
                    sources[$0].name == selector || policies[$0] == selector
                        || sources[$0].chunkName == selector || policies[$0].hasSuffix("/") && String(policies[$0].dropLast()) == selector
                }
                guard !targets.isEmpty else {
                    Terminal.printError(
                        "--param \(param): no policy \"\(selector)\" in this run; "
                            + Suggestion.hint(for: selector, in: sources.map(\.name)))
                    throw Exit.badInput
                }
            } else {
                let declaring = targets.filter { sources[$0].defaultParams[key] != nil }
                guard !declaring.isEmpty else {
                    let known = Set(sources.flatMap(\.defaultParams.keys)).sorted()
                    Terminal.printError(
                        "--param \(key): no policy of this run declares it; "
                            + (known.isEmpty ? "they declare no params" : Suggestion.hint(for: key, in: known)))
                    throw Exit.badInput
                }
                targets = declaring
            }
            for target in targets { overrides[target][key] = value }
        }
        return try sources.indices.map { index in
            do {
                return try sources[index].with(params: overrides[index])
            } catch {
                Terminal.printError("--param: \(error)")
                throw Exit.badInput
            }
        }
    }
}

/// A one-line progress bar on stderr, redrawn at most every 1% (only used on a terminal).
final class ProgressBar: @unchecked Sendable {
    private let console: Console
    private let lock = NSLock()
    private var lastPercent = -1

    /// A bar drawn on `console`'s standard error (captured once: the simulation reports
    /// progress from its workers).
    init(console: Console) {
        self.console = console
    }

    func update(done: Int, total: Int) {
        let percent = total == 0 ? 100 : done * 100 / total
        lock.lock()
        defer { lock.unlock() }
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let line =
            "\rsimulating [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(percent)% (\(done)/\(total) users)"
        console.writeControl(line, to: .error)
    }

    func clear() {
        lock.lock()
        defer { lock.unlock() }
        guard lastPercent >= 0 else { return }
        console.writeControl("\r" + String(repeating: " ", count: 79) + "\r", to: .error)
    }
}
