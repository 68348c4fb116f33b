import Foundation
import PermitBenchReference
import PermitCore
import PermitLua
import PermitSimulator

/// The measurements behind `permit bench` and `permit-benchmark`.
public enum Bench {
    /// A monotonic clock in nanoseconds.
    @inline(__always)
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) }

    /// Warm-VM decision latency through the public engine API: context built from the core's
    /// types, the policy call, decision validation, guardrails, ledger update. Events cycle.
    public static func decisions(
        policy: LuaPolicy, events: [AppEvent], iterations: Int, os: OSVersion = OSVersion(major: 16, minor: 4)
    ) async throws -> (stats: LatencyStats, errors: Int) {
        let platform = Platform(version: os)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_767_600_000))
        let device = try SimulatedDevice(platform: platform, clock: clock)
        let engine = PermissionEngine(
            policy: policy, client: device, platform: platform, store: InMemoryLedgerStore(), clock: clock,
            configuration: EngineConfiguration(timeZone: TimeZone(identifier: "UTC")!, foregroundRechecks: []))
        let warmUp = min(1000, iterations / 10)
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        var errors = 0
        for index in 0..<(warmUp + iterations) {
            let event = events[index % events.count]
            let start = now()
            let outcome = await engine.handle(event)
            let elapsed = now() - start
            if index >= warmUp {
                samples.append(elapsed)
                errors += outcome.errors.count
            }
        }
        return (LatencyStats(samples: samples), errors)
    }

    /// The policy layer alone, without the engine: `LuaPolicy.decide` on contexts like the
    /// engine's for the same events (context pushed, policy call, decision read and validated).
    public static func policyDecisions(
        policy: LuaPolicy, events: [AppEvent], iterations: Int, os: OSVersion = OSVersion(major: 16, minor: 4)
    ) throws -> (stats: LatencyStats, errors: Int) {
        let platform = Platform(version: os)
        var ledger = Ledger()
        ledger.launches = 3
        ledger.foregrounds = 5
        ledger.lastStatus = .notDetermined
        ledger.firstLaunchAt = 1_767_600_000 - 86_400
        ledger.softPrompt.shown = 3
        ledger.features["reminders"] = Ledger.FeatureHistory()
        ledger.features["reminders"]?.opened = 1
        ledger.features["reminders"]?.lastOpenedAt = 1_767_600_000
        let contexts = events.map { event in
            PolicyContext(
                event: event, status: .notDetermined, previousStatus: .notDetermined,
                settings: .typical(for: .notDetermined, on: os), platform: platform, history: ledger,
                now: 1_767_600_000)
        }
        let warmUp = min(1000, iterations / 10)
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        var errors = 0
        for index in 0..<(warmUp + iterations) {
            let context = contexts[index % contexts.count]
            let start = now()
            do {
                _ = try policy.decide(context)
            } catch {
                errors += 1
            }
            let elapsed = now() - start
            if index >= warmUp { samples.append(elapsed) }
        }
        return (LatencyStats(samples: samples), errors)
    }

    /// Cold start: a sandboxed VM, loading the policy and validating it.
    public static func coldStarts(
        source: String, chunkName: String, limits: LuaLimits = .default, iterations: Int
    ) throws -> LatencyStats {
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = now()
            _ = try LuaPolicy(source: source, chunkName: chunkName, limits: limits)
            samples.append(now() - start)
        }
        return LatencyStats(samples: samples)
    }

    /// The C reference's warm decisions on the same policy.
    public static func referenceDecisions(source: String, iterations: Int) throws -> LatencyStats {
        try reference(iterations: iterations) { samples, error in
            permit_reference_decisions(source, source.utf8.count, Int32(iterations), samples, error, 512)
        }
    }

    /// The C reference's cold start: luaL_newstate + luaL_openlibs + loading the policy.
    public static func referenceColdStarts(source: String, iterations: Int) throws -> LatencyStats {
        try reference(iterations: iterations) { samples, error in
            permit_reference_cold_starts(source, source.utf8.count, Int32(iterations), samples, error, 512)
        }
    }

    /// The C reference could not run the policy (it failed to load or raised).
    public struct ReferenceError: Error, CustomStringConvertible {
        /// What the reference reported.
        public let description: String
    }

    private static func reference(
        iterations: Int, _ body: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<CChar>) -> Int32
    ) throws -> LatencyStats {
        var samples = [Double](repeating: 0, count: iterations)
        var error = [CChar](repeating: 0, count: 512)
        let status = samples.withUnsafeMutableBufferPointer { samples in
            error.withUnsafeMutableBufferPointer { error in body(samples.baseAddress!, error.baseAddress!) }
        }
        guard status == 0 else {
            throw ReferenceError(
                description: "C reference failed: " + String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        return LatencyStats(samples: samples)
    }

    /// Resident memory of this process in KiB (Linux `/proc/self/statm`; 0 elsewhere).
    public static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    /// CPU time this process has used, user and system, in seconds (every thread).
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        let who = RUSAGE_SELF.rawValue
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The events a bench cycles through by default: the hot path of an app.
    public static let defaultEvents: [AppEvent] = [
        .appForeground, .featureOpened("reminders"), .appBackground, .featureOpened("reminders"),
    ]
}
