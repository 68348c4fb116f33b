// permit-benchmark: Permit against a C reference of its own, measured in the same run.
//
//   swift run -c release permit-benchmark [POLICY] [--decisions N] [--memory-decisions N]
//                                         [--users N] [--days N] [--workers N] [--pack-users N]
//                                         [--pack NAME] [--sample-users N]
//                                         [--only engine|policy|reference|warm|minimal|cold|test|memory|simulate|sweep|packs]
//
// `--pack NAME` limits `packs` to one pack; `--sample-users N` (default 1,000) is how many users'
// policy calls the minimal host replays there (fewer make a callgrind run of the host short).
//
// `--only` runs one section (for profiling with callgrind): `engine`, `policy` (LuaPolicy.decide
// alone, without the engine) and `reference` run N warm decisions of one side only (one round,
// no comparison), `warm` the interleaved comparison.
//
// Prints the warm decision latency through the engine against the same policy driven straight
// through the Lua C API, the cold start against luaL_newstate + luaL_openlibs + load, the speed
// of `permit test` over all packs, resident memory over many decisions, and `permit simulate`
// (default 100,000 users × 30 days of examples/models/default.yaml on every core) with its cost
// per event against the C reference's decision measured in the same run.
//
// `minimal` and `packs` compare with the minimal C + Lua host (MinimalReference.c: only the ctx
// fields the policy reads, built by a C host over plain Lua): `minimal` for the warm decision,
// `packs` for `permit simulate` of every pack in policies/ (`--pack-users`, default 20,000), the
// ratio with one worker as the host replays on one thread, the run on `--workers` beside it.
// `sweep` (only with `--only`) compares the CPU per event of a sweep of polite's 9 settings
// with a single run of the same users, both measured in the same run (`--pack-users`).
import ArgumentParser
import Foundation
import PermitBench
import PermitCore
import PermitLua
import PermitScenario
import PermitSimulation

/// The command line, read by swift-argument-parser (as `permit`'s verbs are): `--help` lists
/// it, and a misspelt option, a number that is not a positive whole one or an unknown section
/// is refused with what is wrong, where a silently ignored one would measure the defaults.
struct Options: ParsableCommand, Sendable {
    @Argument(help: "The policy file measured.")
    var policyPath = "policies/polite/policy.lua"
    @Option(help: "Warm decisions per side and round.")
    var decisions = 200_000
    @Option(help: "Decisions between the two resident-memory readings.")
    var memoryDecisions = 1_000_000
    @Option(help: "Simulated users for `simulate`.")
    var users = 100_000
    @Option(help: "Simulated days.")
    var days = 30
    @Option(help: "Simulation workers (default: every core).")
    var workers: Int?
    @Option(help: "Simulated users per pack for `packs` and `sweep`.")
    var packUsers = 20_000
    @Option(help: ArgumentHelp("One section only.", valueName: "section"))
    var only: String?
    @Option(
        help: ArgumentHelp(
            "One pack only for `packs` (a directory of policies/; default: every pack).", valueName: "name"))
    var pack: String?
    @Option(help: "Users whose policy calls the minimal host replays for `packs`.")
    var sampleUsers = 1_000

    static let configuration = CommandConfiguration(
        commandName: "permit-benchmark",
        abstract: "Permit against C references measured in the same run.",
        discussion: "Sections: \(BenchmarkRun.sections.map(\.name).joined(separator: ", ")). Run it in release mode.")

    func validate() throws {
        let counts = [
            ("--decisions", decisions), ("--memory-decisions", memoryDecisions), ("--users", users),
            ("--days", days), ("--workers", workers ?? 1), ("--pack-users", packUsers),
            ("--sample-users", sampleUsers),
        ]
        for (name, value) in counts where value < 1 {
            throw ValidationError("\(name) must be a positive whole number, got \(value)")
        }
        let sections = BenchmarkRun.sections.map(\.name)
        if let only, !sections.contains(only) {
            throw ValidationError("--only takes one of \(sections.joined(separator: ", ")), got \"\(only)\"")
        }
        if let pack {
            // Only `packs` reads it: with another section it would be ignored without a word.
            if let only, only != "packs" {
                throw ValidationError("--pack applies to the packs section, not to --only \(only)")
            }
            let known = Self.packNames()
            guard known.contains(pack) else {
                throw ValidationError("--pack takes one of \(known.joined(separator: ", ")), got \"\(pack)\"")
            }
        }
    }

    /// The packs `packs` measures: the directories of policies/ holding a policy.lua, sorted.
    static func packNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "policies")) ?? []
        return names.filter { FileManager.default.fileExists(atPath: "policies/\($0)/policy.lua") }.sorted()
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("permit-benchmark: \(message)\n".utf8))
    exit(2)
}

func format(_ stats: LatencyStats) -> String {
    String(
        format: "min %6.0f  median %6.0f  p99 %7.0f ns  (%.0f/s)", stats.minNanoseconds, stats.medianNanoseconds, stats.p99Nanoseconds,
        stats.perSecond)
}

func run(_ options: Options) async {
    guard let source = try? String(contentsOfFile: options.policyPath, encoding: .utf8) else {
        fail("cannot read \(options.policyPath)")
    }
    let policy: LuaPolicy
    do { policy = try LuaPolicy(source: source, chunkName: options.policyPath) } catch { fail("\(error)") }

    #if DEBUG
    print("warning: a debug build; run `swift run -c release permit-benchmark` for real figures\n")
    #endif
    print("policy: \(options.policyPath); \(ProcessInfo.processInfo.activeProcessorCount) cores")
    let benchmark = BenchmarkRun(options: options, source: source, policy: policy)
    do {
        // `--only` picks one section; without it, every section that runs by default.
        for section in BenchmarkRun.sections where options.only.map({ $0 == section.name }) ?? section.runsByDefault {
            try await section.run(benchmark)
            fflush(nil)  // each section's lines as soon as it is measured, also into a pipe
        }
    } catch {
        fail("\(error)")
    }
}

/// One benchmark run: the policy under test and one function per section of the report.
struct BenchmarkRun: Sendable {
    let options: Options
    let source: String
    let policy: LuaPolicy

    /// The sections in report order. `engine`, `policy` and `reference` run only when asked for
    /// with `--only` (each is also part of `warm`); the rest run by default.
    static let sections: [(name: String, runsByDefault: Bool, run: @Sendable (BenchmarkRun) async throws -> Void)] = [
        ("engine", false, { try await $0.engineOnly() }),
        ("policy", false, { try $0.policyOnly() }),
        ("reference", false, { try $0.referenceOnly() }),
        ("warm", true, { try await $0.warm() }),
        ("minimal", true, { try await $0.minimal() }),
        ("cold", true, { try $0.cold() }),
        ("test", true, { try await $0.packTests() }),
        ("memory", true, { try await $0.memory() }),
        ("simulate", true, { try await $0.simulate() }),
        ("sweep", false, { try await $0.sweep() }),
        ("packs", true, { try await $0.packs() }),
    ]

    var decisionCount: Int { options.decisions }

    func engineOnly() async throws {
        let run = try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: decisionCount)
        print("\nwarm decision, engine only (\(decisionCount), \(run.errors) errors)")
        print("  permit engine   \(format(run.stats))")
    }

    func policyOnly() throws {
        let run = try Bench.policyDecisions(policy: policy, events: Bench.defaultEvents, iterations: decisionCount)
        print("\nwarm decision, LuaPolicy.decide only (\(decisionCount), \(run.errors) errors)")
        print("  policy layer    \(format(run.stats))")
    }

    func referenceOnly() throws {
        let stats = try Bench.referenceDecisions(source: source, iterations: decisionCount)
        print("\nwarm decision, C reference only (\(decisionCount))")
        print("  C reference     \(format(stats))")
    }

    /// Swift and C rounds interleaved, so both see the same machine state.
    func warm() async throws {
        var ours: [LatencyStats] = [], theirs: [LatencyStats] = []
        for _ in 0..<3 {
            theirs.append(try Bench.referenceDecisions(source: source, iterations: decisionCount / 3))
            ours.append(try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: decisionCount / 3).stats)
        }
        let our = ours.min { $0.medianNanoseconds < $1.medianNanoseconds }!
        let their = theirs.min { $0.medianNanoseconds < $1.medianNanoseconds }!
        print("\nwarm decision (best of 3 rounds of \(decisionCount / 3))")
        print("  permit engine   \(format(our))")
        print("  C reference     \(format(their))")
        print(
            String(format: "  ratio           %.2f× the C reference median (goal ≤ 1.5×)", our.medianNanoseconds / their.medianNanoseconds))
    }

    /// The warm decision in CPU per event against the minimal host replaying the same calls.
    func minimal() async throws {
        let comparison = try await Bench.minimalComparison(
            policy: policy, source: source, events: Bench.defaultEvents, iterations: decisionCount / 4)
        print("\nwarm decision against the minimal C + Lua host (CPU per event, \(decisionCount / 4) events)")
        print("  ctx read        \(comparison.reads.joined(separator: " "))")
        print(String(format: "  permit engine   %6.0f ns", comparison.permitNanoseconds))
        print(String(format: "  minimal host    %6.0f ns", comparison.minimalNanoseconds))
        print(String(format: "  ratio           %.2f× (goal ≤ 1.5×)", comparison.ratio))
        print(
            String(
                format: "  policy layer    %6.0f ns (Permit without its engine, on the same calls), %.2f× the host",
                comparison.policyLayerNanoseconds, comparison.policyLayerRatio)
                + (comparison.policyLayerFailedCalls > 0 ? " (\(comparison.policyLayerFailedCalls) calls failed)" : ""))
    }

    /// `permit simulate` of each pack in policies/ against the minimal host replaying the calls
    /// of the first users of the same run (same seed, same model).
    ///
    /// The ratio is taken with one worker, as the host replays on one thread: with every core
    /// busy, the workers share caches and each event costs more CPU than it does alone, which
    /// the host does not pay. The run on `--workers` (all cores by default) is printed beside it;
    /// `--only sweep` is where the cost of running in parallel is measured.
    func packs() async throws {
        let names = Options.packNames().filter { options.pack == nil || options.pack == $0 }
        guard !names.isEmpty else { return }
        let modelPath = "examples/models/default.yaml"
        let model = try UserModel.load(contentsOf: URL(fileURLWithPath: modelPath), displayName: modelPath)
        let users = options.packUsers
        let parallel = SimulationOptions(users: users, days: options.days, seed: 1, workers: options.workers)
        print("\npermit simulate per pack: \(users) users × \(options.days) days of \(modelPath), CPU per event")
        print(
            "  pack                 permit ns   minimal ns   ratio (goal ≤ 1.5×)   "
                + "permit ns, \(parallel.workers) workers   wall s")
        for name in names {
            let path = "policies/\(name)/policy.lua"
            let pack = try SimulationPolicy.load(contentsOf: URL(fileURLWithPath: path), displayName: path)
            // The best of as many runs as the host's replays (`MinimalReference.rounds`): the
            // same estimator on both sides, so a slow run of either does not make the ratio.
            let single = SimulationOptions(users: users, days: options.days, seed: 1, workers: 1)
            var alone = await Self.cpuPerEvent(pack, model, single)
            for _ in 1..<MinimalReference.rounds {
                let again = await Self.cpuPerEvent(pack, model, single)
                if again.nanoseconds < alone.nanoseconds { alone = again }
            }
            let together = await Self.cpuPerEvent(pack, model, parallel)
            let sample = SimulationOptions(users: options.sampleUsers, days: options.days, seed: 1, workers: 1)
            let recorded = await Simulation.recordCalls(policy: pack, model: model, options: sample)
            let calls = recorded.calls.map { (context: $0.context, planning: $0.function == .planReminders) }
            let measured = try MinimalReference.measure(
                source: pack.source, calls: calls, declaredEvents: pack.declaredEvents)
            let minimal = measured.cpuNanoseconds / Double(recorded.events)
            let label = name.padding(toLength: 20, withPad: " ", startingAt: 0)
            print(
                "  " + label
                    + String(
                        format: " %9.0f   %10.0f   %5.2f×                %9.0f              %6.2f", alone.nanoseconds, minimal,
                        alone.nanoseconds / minimal, together.nanoseconds, together.wallSeconds))
            let layer = try PolicyLayerReplay.measure(
                source: pack.source, chunkName: pack.chunkName, limits: pack.limits, calls: calls)
            print("    ctx read: \(measured.reads.joined(separator: " "))")
            print("    minimal host: \(calls.count) policy calls of \(recorded.events) events (\(sample.users) users)")
            let layerNanoseconds = layer.cpuNanoseconds / Double(recorded.events)
            print(
                String(
                    format: "    Permit's policy layer alone on these calls: %.0f ns, %.2f× the host", layerNanoseconds,
                    layerNanoseconds / minimal) + (layer.failedCalls > 0 ? " (\(layer.failedCalls) calls failed)" : ""))
            fflush(nil)
        }
    }

    /// The whole process's CPU time per simulated event of one run of `pack`, and its wall time.
    private static func cpuPerEvent(
        _ pack: SimulationPolicy, _ model: UserModel, _ options: SimulationOptions
    ) async
        -> (nanoseconds: Double, wallSeconds: Double)
    {
        let cpuBefore = Bench.cpuSeconds()
        let result = await Simulation.run(policies: [pack], model: model, options: options)
        return ((Bench.cpuSeconds() - cpuBefore) * 1e9 / Double(result.policies[0].events), result.elapsedSeconds)
    }

    /// A sweep of 9 settings of polite against single runs of the same users, in CPU per event:
    /// single, sweep, single, so both sides see the same machine; the goal is about 1.0×.
    func sweep() async throws {
        let modelPath = "examples/models/default.yaml", path = "policies/polite/policy.lua"
        let model = try UserModel.load(contentsOf: URL(fileURLWithPath: modelPath), displayName: modelPath)
        let polite = try SimulationPolicy.load(contentsOf: URL(fileURLWithPath: path), displayName: path)
        let options = SimulationOptions(users: self.options.packUsers, days: self.options.days, seed: 1, workers: self.options.workers)
        let axes = [
            SweepAxis(
                param: "settings_backoff_days",
                values: [[1, 7, 30], [3, 7, 30], [7, 14, 60]].map { days in
                    .list(days.map { .integer(Int64($0)) })
                }),
            SweepAxis(param: "max_soft_prompts", values: [.integer(1), .integer(2), .integer(3)]),
        ]
        print(
            "\npermit simulate --sweep: 9 settings × \(options.users) users × \(options.days) days of polite, "
                + "\(options.workers) workers, CPU per event")
        var singles: [Double] = []
        func single() async {
            let before = Bench.cpuSeconds()
            let result = await Simulation.run(policies: [polite], model: model, options: options)
            singles.append((Bench.cpuSeconds() - before) * 1e9 / Double(result.policies[0].events))
            print(
                String(
                    format: "  single run   %6.0f ns  (%.2f s wall, %d events)", singles.last!,
                    result.elapsedSeconds, result.policies[0].events))
        }
        await single()
        let before = Bench.cpuSeconds()
        let swept = try await Sweep.run(
            policy: polite, axes: axes, model: model, options: options, objective: nil, constraints: [])
        let events = swept.runs.reduce(0) { $0 + $1.result.events }
        let perEvent = (Bench.cpuSeconds() - before) * 1e9 / Double(events)
        print(String(format: "  sweep        %6.0f ns  (%.2f s wall, %d events)", perEvent, swept.simulation.elapsedSeconds, events))
        await single()
        let baseline = singles.reduce(0, +) / Double(singles.count)
        print(String(format: "  ratio        %.2f× the single runs' mean (goal ≈ 1.0×)", perEvent / baseline))
    }

    func cold() throws {
        let cold = try Bench.coldStarts(source: source, chunkName: options.policyPath, iterations: 2000)
        let referenceCold = try Bench.referenceColdStarts(source: source, iterations: 2000)
        print("\ncold start (median of 2000)")
        print(String(format: "  sandboxed VM + load + validate   %.1f µs", cold.medianNanoseconds / 1000))
        print(String(format: "  luaL_newstate + openlibs + load  %.1f µs", referenceCold.medianNanoseconds / 1000))
        print(
            String(format: "  ratio                            %.2f× (goal ≤ 2×)", cold.medianNanoseconds / referenceCold.medianNanoseconds)
        )
    }

    /// `permit test policies`, when run from the repository.
    func packTests() async throws {
        guard FileManager.default.fileExists(atPath: "policies") else { return }
        let files = try Discovery.scenarios(under: ["policies"])
        let start = DispatchTime.now().uptimeNanoseconds
        let run = await TestRun.run(files, filter: nil) { url throws(PolicyError) in
            try LuaPolicy.load(contentsOf: url)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let steps = run.reports.reduce(0) { total, report in
            if case .ran(let result) = report.verdict { return total + result.steps.count }
            return total
        }
        print(
            String(
                format: "\npermit test policies: %d scenarios, %d steps in %.3f s = %.0f steps/s (%d passed)",
                run.reports.count, steps, seconds, Double(steps) / seconds, run.passedCount))
    }

    func memory() async throws {
        print("\nmemory over \(options.memoryDecisions) decisions")
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: 50_000)
        let before = Bench.residentKiB()
        _ = try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: options.memoryDecisions)
        let after = Bench.residentKiB()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("  resident after warm-up \(before) KiB, after the run \(after) KiB: grew \(after - before) KiB (goal < 1024)")
        print("  VM memory \(policy.memoryInUse / 1024) KiB")
        print(String(format: "  took %.1f s", seconds))
    }

    func simulate() async throws {
        let modelPath = "examples/models/default.yaml"
        let model = try UserModel.load(contentsOf: URL(fileURLWithPath: modelPath), displayName: modelPath)
        let simulated = try SimulationPolicy(source: source, chunkName: options.policyPath)
        let simulation = SimulationOptions(users: options.users, days: options.days, seed: 1, workers: options.workers)
        let cpuBefore = Bench.cpuSeconds()
        let result = await Simulation.run(policies: [simulated], model: model, options: simulation)
        let cpu = Bench.cpuSeconds() - cpuBefore
        let events = result.policies[0].events
        let perEvent = cpu / Double(events) * 1e9
        print("\npermit simulate: \(options.users) users × \(options.days) days, \(modelPath), \(simulation.workers) workers")
        print(
            String(
                format: "  %.2f s wall (goal < 10 s for 100,000 × 30 on 2 cores), %.1f s CPU, %d events",
                result.elapsedSeconds, cpu, events))
        print(String(format: "  %.0f events/s; %.0f ns of CPU per event", Double(events) / result.elapsedSeconds, perEvent))
        let reference = try Bench.referenceDecisions(source: source, iterations: 100_000)
        print(
            String(
                format: "  per event %.2f× the C reference's decision median (%.0f ns), measured now",
                perEvent / reference.medianNanoseconds, reference.medianNanoseconds))
    }
}

// No top-level `await`: an async main parks the main thread in libdispatch's `sigsuspend`, which
// valgrind 3.19 cannot follow (it crashes writing to the read-only signal mask), so the
// benchmark could not be profiled with callgrind. The measurements run in a task; the main
// thread waits. The measured loops are nonisolated async functions either way, so they run on
// the global executor exactly as before.
// Paths (the policy, policies/ for `packs` and `test`) are the repository root's: run from
// Benchmarks/ (`cd Benchmarks && swift run -c release permit-benchmark`), it works from there.
if !FileManager.default.fileExists(atPath: "policies"), FileManager.default.fileExists(atPath: "../policies") {
    _ = FileManager.default.changeCurrentDirectoryPath("..")
}
// Parsed only, never run as a command: the measurements run in the task below.
let options = Options.parseOrExit()
let finished = DispatchSemaphore(value: 0)
Task.detached {
    await run(options)
    finished.signal()
}
finished.wait()
