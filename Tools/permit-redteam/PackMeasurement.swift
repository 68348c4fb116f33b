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
            print(
                String(
                    format: "  %-18@ %4d calls  max %6d instructions  max %7.3f ms  peak %5d KiB  (%d/%d scenarios pass)",
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

    var declaration: PolicyDeclaration { inner.declaration }

    private func measured<T>(_ body: () throws(PolicyError) -> T) throws(PolicyError) -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            recorder.record(instructions: inner.instructionsUsedByLastCall, milliseconds: ms, peak: inner.peakMemory)
        }
        return try body()
    }

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
/// every key into one chain takes when the table is as big as the cap allows. The chain is
/// built in one call (an attacker can spread that over many) and the rehash timed in the next.
enum CollisionMeasurement {
    /// For a cap of 2^m slots: 2^m - 1 keys equal modulo 2^m - 1 fill the table, one is
    /// dropped, and the second new key forces a rehash into the same 2^m slots, which
    /// re-inserts all of them into one chain in one C call.
    static func source(slotsExponent m: Int) -> String {
        """
        local step = (1 << \(m)) - 1
        local t = {}
        return function(phase)
          if phase == 1 then
            for i = 1, step do t[i * step] = true end
            t[step] = nil
            t[(step + 1) * step] = true
          else
            t[(step + 2) * step] = true
          end
        end
        """
    }

    /// Milliseconds of the call that rehashes, with the cap at 2^m slots.
    static func milliseconds(slotsExponent m: Int) -> Double? {
        var limits = LuaLimits.default
        limits.timeLimitMilliseconds = 60_000
        limits.instructionsPerCall = 1_000_000_000
        limits.memoryBytes = 256 << 20
        limits.maxTableSlots = 1 << m
        let vm = LuaVM(limits: limits)
        do {
            let chunk = try vm.load(source(slotsExponent: m), chunkName: "collide.lua")
            guard case .ref(let phases)? = try vm.call(chunk, keepFunctions: true).first else { return nil }
            _ = try vm.call(phases, [.integer(1)])
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try vm.call(phases, [.integer(2)])
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        } catch {
            return nil
        }
    }

    static func printAll() {
        print("Integer keys colliding into one chain: the one rehash, table as big as the slot cap allows:")
        for m in [9, 10, 11, 12, 13] {
            let shown = milliseconds(slotsExponent: m).map { String(format: "%8.2f ms", $0) } ?? "   failed"
            print("  cap 2^\(m) slots: \(shown)\(1 << m == LuaLimits.default.maxTableSlots ? "  (the default cap)" : "")")
        }
    }
}
