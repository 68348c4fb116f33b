import ArgumentParser
import Foundation
import PermitBench
import PermitCore
import PermitScenario

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure a policy's decision latency, cold start and VM memory.",
        discussion: """
            Warm decisions run through the public engine API (context, policy call, validation, \
            guardrails, ledger); cold start is a sandboxed VM plus loading and validating the policy. \
            Build in release mode for meaningful figures. The same policy driven straight through the \
            Lua C API is measured in the same run as the reference.

            Examples:
              swift run -c release permit bench policies/polite
              swift run -c release permit bench policies/polite --scenario examples/walkthrough.yaml --format json
            """)

    @Argument(help: "The policy file, or a pack directory holding policy.lua.")
    var policy: String

    @Option(help: "Cycle through the events of this scenario instead of the default app_foreground/feature_opened mix.")
    var scenario: String?

    @Option(help: "Decisions to measure.")
    var iterations = 100_000

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var limitOptions: LimitOptions

    func validate() throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be positive") }
    }

    func run() async throws {
        let url = try policyURL(policy)
        let loaded = try loadPolicy(url, limits: limitOptions.limits)
        let source = try String(contentsOf: url, encoding: .utf8)
        let events = try scenario.map(Self.events(of:)) ?? Bench.defaultEvents
        let (decisions, errors) = try await Bench.decisions(policy: loaded, events: events, iterations: iterations)
        let coldIterations = max(50, min(2000, iterations / 50))
        let cold = try Bench.coldStarts(
            source: source, chunkName: loaded.chunkName, limits: limitOptions.limits, iterations: coldIterations)
        let reference = try Bench.referenceDecisions(source: source, iterations: iterations)
        let minimal = try await Bench.minimalComparison(
            policy: loaded, source: source, events: events, iterations: max(events.count, min(iterations, 20_000)))
        let referenceCold = try Bench.referenceColdStarts(source: source, iterations: coldIterations)
        let vmKiB = loaded.memoryInUse / 1024
        if format == .json {
            let value: PolicyValue = .table([
                "min_ns": .number(decisions.minNanoseconds), "median_ns": .number(decisions.medianNanoseconds),
                "p99_ns": .number(decisions.p99Nanoseconds), "per_second": .number(decisions.perSecond.rounded()),
                "cold_start_us": .number(cold.medianNanoseconds / 1000), "vm_kib": .integer(Int64(vmKiB)),
                "decisions": .integer(Int64(decisions.count)), "policy_errors": .integer(Int64(errors)),
                "reference_median_ns": .number(reference.medianNanoseconds),
                "reference_cold_start_us": .number(referenceCold.medianNanoseconds / 1000),
                "decision_ratio": .number(decisions.medianNanoseconds / max(1, reference.medianNanoseconds)),
                "cold_start_ratio": .number(cold.medianNanoseconds / max(1, referenceCold.medianNanoseconds)),
                "cpu_per_event_ns": .number(minimal.permitNanoseconds.rounded()),
                "minimal_cpu_per_event_ns": .number(minimal.minimalNanoseconds.rounded()),
                "minimal_ratio": .number(minimal.ratio),
                "minimal_pooled_cpu_per_event_ns": .number(minimal.pooledNanoseconds.rounded()),
                "minimal_pooled_ratio": .number(minimal.pooledRatio),
                "policy_layer_cpu_per_event_ns": .number(minimal.policyLayerNanoseconds.rounded()),
                "policy_layer_ratio": .number(minimal.policyLayerRatio),
                "policy_layer_failed_calls": .integer(Int64(minimal.policyLayerFailedCalls)),
                "minimal_ctx_reads": .list(minimal.reads.map(PolicyValue.string)),
            ])
            Terminal.say(value.prettyJSON)
        } else {
            func ns(_ value: Double) -> String { String(format: "%.0f ns", value) }
            Terminal.say("policy \(loaded.name) (\(loaded.chunkName)), \(decisions.count) decisions over \(events.count) events")
            Terminal.say("decision   min \(ns(decisions.minNanoseconds))  median \(ns(decisions.medianNanoseconds))  p99 \(ns(decisions.p99Nanoseconds))  \(String(format: "%.0f", decisions.perSecond))/s")
            Terminal.say("reference  median \(ns(reference.medianNanoseconds)) (C + Lua, no Swift): ratio \(String(format: "%.2f", decisions.medianNanoseconds / max(1, reference.medianNanoseconds)))×")
            Terminal.say("minimal    \(ns(minimal.permitNanoseconds)) of CPU per event against \(ns(minimal.minimalNanoseconds)) for a C host building only the ctx read: ratio \(String(format: "%.2f", minimal.ratio))× (goal ≤ 1.5×)")
            Terminal.say("           \(ns(minimal.pooledNanoseconds)) for that host allocating from Permit's pool: ratio \(String(format: "%.2f", minimal.pooledRatio))×")
            Terminal.say("           \(ns(minimal.policyLayerNanoseconds)) for Permit's policy layer alone on the same calls (no engine): ratio \(String(format: "%.2f", minimal.policyLayerRatio))×"
                + (minimal.policyLayerFailedCalls > 0 ? ", \(minimal.policyLayerFailedCalls) calls failed" : ""))
            Terminal.say("cold start \(String(format: "%.1f µs", cold.medianNanoseconds / 1000)) (reference \(String(format: "%.1f µs", referenceCold.medianNanoseconds / 1000)): ratio \(String(format: "%.2f", cold.medianNanoseconds / max(1, referenceCold.medianNanoseconds)))×)")
            Terminal.say("vm memory  \(vmKiB) KiB")
            if errors > 0 { Terminal.say("policy errors during the run: \(errors)") }
        }
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
