import Foundation
import PermitCore
import PermitLua
import PermitScenario

/// What the shipped packs use per call while their own tests run: the figures the default
/// limits are sized from (docs/security.md).
enum PackMeasurement {
    static func printAll() {
        let packs = (try? FileManager.default.contentsOfDirectory(atPath: "policies"))?.sorted() ?? []
        print("Per-call use of the shipped packs (their tests, generous limits):")
        for pack in packs where FileManager.default.fileExists(atPath: "policies/\(pack)/policy.lua") {
            let recorder = Recorder()
            let files = (try? Discovery.scenarios(under: ["policies/\(pack)"])) ?? []
            let semaphore = DispatchSemaphore(value: 0)
            let box = RunBox()
            Task {
                box.run = await TestRun.run(files, filter: nil) { url throws(PolicyError) in
                    var generous = LuaLimits.default
                    generous.timeLimitMilliseconds = 10_000
                    generous.instructionsPerCall = 100_000_000
                    let policy = try LuaPolicy.load(contentsOf: url, displayName: Discovery.displayPath(of: url), limits: generous)
                    return MeasuredPolicy(inner: policy, recorder: recorder)
                }
                semaphore.signal()
            }
            semaphore.wait()
            let r = recorder.snapshot()
            print(String(format: "  %-18@ %4d calls  max %6d instructions  max %7.3f ms  peak %5d KiB  (%d/%d scenarios pass)",
                         pack as NSString, r.calls, r.maxInstructions, r.maxMilliseconds, r.peakBytes >> 10,
                         box.run?.passedCount ?? 0, box.run?.reports.count ?? 0))
        }
    }
}

final class RunBox: @unchecked Sendable { var run: TestRun? }

final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0, maxInstructions = 0, peakBytes = 0
    private var maxMilliseconds = 0.0

    func record(instructions: Int, milliseconds: Double, peak: Int) {
        lock.withLock {
            calls += 1
            maxInstructions = max(maxInstructions, instructions)
            maxMilliseconds = max(maxMilliseconds, milliseconds)
            peakBytes = max(peakBytes, peak)
        }
    }

    func snapshot() -> (calls: Int, maxInstructions: Int, maxMilliseconds: Double, peakBytes: Int) {
        lock.withLock { (calls, maxInstructions, maxMilliseconds, peakBytes) }
    }
}

/// A LuaPolicy that records each call's instructions, time and the VM's peak memory.
struct MeasuredPolicy: Policy {
    let inner: LuaPolicy
    let recorder: Recorder

    var name: String { inner.name }
    var plansReminders: Bool { inner.plansReminders }

    private func measured<T>(_ body: () throws(PolicyError) -> T) throws(PolicyError) -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            recorder.record(instructions: inner.instructionsUsedByLastCall, milliseconds: ms, peak: inner.peakMemory)
        }
        return try body()
    }

    func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? { try measured { () throws(PolicyError) in try inner.decide(context) } }
    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        try measured { () throws(PolicyError) in try inner.planReminders(context) }
    }
    func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
    func takeTrace() -> String { inner.takeTrace() }
    func answer(_ context: PolicyContext) -> PolicyAnswer {
        let start = DispatchTime.now().uptimeNanoseconds
        let answer = inner.answer(context)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        recorder.record(instructions: inner.instructionsUsedByLastCall, milliseconds: ms, peak: inner.peakMemory)
        return answer
    }
    func eventHandled(errors: [PolicyError]) { inner.eventHandled(errors: errors) }
}

/// The integer-key collision attack at the table slot cap: how long the one rehash that puts
/// every key into one chain takes when the table is as big as the cap allows.
enum CollisionMeasurement {
    static func source(slotsExponent m: Int) -> String {
        """
        return { name = "collide", decide = function(ctx)
          local t, step = {}, (1 << \(m - 1)) - 1
          for i = 1, 1 << \(m - 1) do t[-i] = true end
          for i = 1, 1 << \(m - 2) do t[i * step] = true end
          for i = 1, 1 << \(m - 1) do t[-i] = nil end
          for i = (1 << \(m - 2)) + 1, 1 << \(m - 1) do t[i * step] = true end
          return nil
        end }
        """
    }

    /// Milliseconds of the whole call (filling included) with the cap at 2^m slots.
    static func milliseconds(slotsExponent m: Int) -> Double? {
        var limits = LuaLimits.default
        limits.timeLimitMilliseconds = 60_000
        limits.instructionsPerCall = 1_000_000_000
        limits.memoryBytes = 256 << 20
        limits.maxTableSlots = 1 << m
        guard let policy = try? LuaPolicy(source: source(slotsExponent: m), chunkName: "collide.lua", limits: limits) else { return nil }
        let version = try! OSVersion(parsing: "16.4")
        let context = PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: 1)
        let start = DispatchTime.now().uptimeNanoseconds
        do { _ = try policy.decide(context) } catch { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    static func printAll() {
        print("Integer keys colliding into one chain, table as big as the slot cap allows (whole call):")
        for m in [12, 13, 14, 15, 16] {
            let shown = milliseconds(slotsExponent: m).map { String(format: "%8.1f ms", $0) } ?? "   failed"
            print("  cap 2^\(m) slots: \(shown)\(1 << m == LuaLimits.default.maxTableSlots ? "  (the default cap)" : "")")
        }
    }
}
