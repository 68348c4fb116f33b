import ArgumentParser
import Foundation
import PermitCore
import PermitLua
import PermitScenario
import PermitSimulator

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure a policy's decision latency, cold start and VM memory.",
        discussion: """
            Warm decisions run through the public engine API (context, policy call, validation, \
            guardrails, ledger); cold start is what an app waits for before its first answer: a \
            sandboxed VM, loading and validating the policy, and the first decision. Build in \
            release mode for meaningful figures. Comparisons with C hosts driving Lua directly \
            are the benchmark package's (Benchmarks/, `permit-benchmark`).

            Examples:
              swift run -c release permit bench policies/polite
              swift run -c release permit bench policies/polite --scenario examples/walkthrough.yaml --format json
              swift run -c release permit bench policies/polite --playground

            --playground measures the playground instead (`permit serve`): from an edit of the \
            pack's policy.lua to every scenario's result against the edited text, as the Tests \
            panel gets it (a new copy of the pack, then the pack's scenarios).
            """)

    @Argument(help: "The policy file, or a pack directory holding policy.lua.")
    var policy: String

    @Option(help: "Cycle through the events of this scenario instead of the default app_foreground/feature_opened mix.")
    var scenario: String?

    @Option(help: "Decisions to measure.")
    var iterations = 100_000

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(help: "Measure the playground's edit-to-test-results time for the pack (permit serve) instead.")
    var playground = false

    @OptionGroup var limitOptions: LimitOptions

    func validate() throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be positive") }
    }

    func run() async throws {
        if playground { return try await runPlayground() }
        let url = try policyURL(policy)
        let loaded = try loadPolicy(url, limits: limitOptions.limits)
        let source = try String(contentsOf: url, encoding: .utf8)
        let events = try scenario.map(Self.events(of:)) ?? DecisionTiming.defaultEvents
        let (decisions, errors) = await DecisionTiming.warm(policy: loaded, events: events, iterations: iterations)
        let cold = try await DecisionTiming.coldStarts(
            source: source, chunkName: loaded.chunkName, limits: limitOptions.limits, copy: loaded.copy, event: events[0],
            iterations: max(50, min(2000, iterations / 50)))
        let vmKiB = loaded.memoryInUse / 1024
        if format == .json {
            let value: PolicyValue = .table([
                "min_ns": .number(decisions.min), "median_ns": .number(decisions.median),
                "p99_ns": .number(decisions.p99), "per_second": .number(decisions.perSecond.rounded()),
                "cold_start_us": .number(cold.median / 1000), "vm_kib": .integer(Int64(vmKiB)),
                "decisions": .integer(Int64(decisions.count)), "policy_errors": .integer(Int64(errors)),
            ])
            Terminal.say(value.prettyJSON)
        } else {
            func ns(_ value: Double) -> String { String(format: "%.0f ns", value) }
            Terminal.say("policy \(loaded.name) (\(loaded.chunkName)), \(decisions.count) decisions over \(events.count) events")
            Terminal.say(
                "decision   min \(ns(decisions.min))  median \(ns(decisions.median))  p99 \(ns(decisions.p99))  \(String(format: "%.0f", decisions.perSecond))/s"
            )
            Terminal.say("cold start \(String(format: "%.1f µs", cold.median / 1000)) (VM, policy loaded and validated, first decision)")
            Terminal.say("vm memory  \(vmKiB) KiB")
            if errors > 0 { Terminal.say("policy errors during the run: \(errors)") }
        }
    }
}

/// The figures `permit bench` gives a policy's author, measured through the public engine API.
enum DecisionTiming {
    /// Durations of one measured loop, in nanoseconds.
    struct Stats {
        var count: Int
        var min: Double
        var median: Double
        var p99: Double
        /// Decisions per second at the median.
        var perSecond: Double { median > 0 ? 1e9 / median : 0 }

        init(samples: [Double]) {
            let sorted = samples.sorted()
            count = sorted.count
            min = sorted.first ?? 0
            median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            p99 = sorted.isEmpty ? 0 : sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
    }

    /// The events a bench cycles through by default: the hot path of an app.
    static let defaultEvents: [AppEvent] = [
        .appForeground, .featureOpened("reminders"), .appBackground, .featureOpened("reminders"),
    ]

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) }

    /// An engine on a simulated iOS 16.4 phone with an in-memory ledger, at a fixed time.
    static func engine(policy: any Policy) throws -> PermissionEngine {
        let platform = Platform(version: OSVersion(major: 16, minor: 4))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        return PermissionEngine(
            policy: policy, client: try SimulatedDevice(platform: platform, clock: clock), platform: platform,
            store: InMemoryLedgerStore(), clock: clock,
            configuration: EngineConfiguration(timeZone: TimeZone(identifier: "UTC")!, foregroundRechecks: []))
    }

    /// Warm decisions through one engine, events cycling, after a warm-up of a tenth (at most 1,000).
    static func warm(policy: LuaPolicy, events: [AppEvent], iterations: Int) async -> (Stats, errors: Int) {
        guard let engine = try? engine(policy: policy) else { return (Stats(samples: []), 0) }
        let warmUp = Swift.min(1000, iterations / 10)
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        var errors = 0
        for index in 0..<(warmUp + iterations) {
            let start = now()
            let outcome = await engine.handle(events[index % events.count])
            let elapsed = now() - start
            if index >= warmUp {
                samples.append(elapsed)
                errors += outcome.errors.count
            }
        }
        return (Stats(samples: samples), errors)
    }

    /// Cold starts: a sandboxed VM, the policy loaded and validated, an engine, its first decision.
    static func coldStarts(
        source: String, chunkName: String, limits: LuaLimits, copy: PolicyCopy = .empty, event: AppEvent, iterations: Int
    ) async throws -> Stats {
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = now()
            let policy = try LuaPolicy(source: source, chunkName: chunkName, limits: limits, copy: copy)
            _ = try await engine(policy: policy).handle(event)
            samples.append(now() - start)
        }
        return Stats(samples: samples)
    }
}

extension BenchCommand {
    /// The event steps of a scenario file, in order: what `--scenario` replays.
    static func events(of scenario: String) throws -> [AppEvent] {
        let events: [AppEvent]
        do {
            let parsed = try ScenarioParser.parse(contentsOf: Terminal.file(scenario), displayName: scenario)
            events = parsed.steps.compactMap { step in
                if case .event(let event) = step.action { return event }
                return nil
            }
        } catch {
            Terminal.printError(error.description)
            throw Exit.badInput
        }
        guard !events.isEmpty else {
            Terminal.printError("\(scenario): the scenario has no event steps to replay")
            throw Exit.badInput
        }
        return events
    }
}
