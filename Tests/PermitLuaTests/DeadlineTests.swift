import Foundation
import PermitCore
import Testing

@testable import PermitLua

/// The deadline that needs no help from the VM: a call that holds its thread in work the VM's
/// checks do not see (here a host function that sleeps, standing for a C loop inside Lua) ends
/// for the caller at the time limit plus the margin, and that VM is never entered again.
@Suite struct DeadlineTests {
    /// A policy whose `decide` calls `stall` once the test handed it one (through `decide`).
    static let source = """
        local stall
        return {
          name = "stalling",
          decide = function(ctx)
            if type(ctx) == "function" then
              stall = ctx
              return nil
            end
            if stall then stall() end
            return { action = "none", reason = "answered" }
          end,
        }
        """

    static let limits = LuaLimits(timeLimitMilliseconds: 50, deadlineMarginMilliseconds: 5)

    static let context: PolicyContext = {
        let version = try! OSVersion(parsing: "17.0")
        return PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            now: 1_767_600_000)
    }()

    /// The policy, its VM made to hold its thread `seconds` at every decision, and how many
    /// times the stall was entered.
    static func stalling(seconds: Double, limits: LuaLimits = limits) throws -> (LuaPolicy, Locked<Int>) {
        let policy = try LuaPolicy(source: source, chunkName: "stalling.lua", limits: limits)
        let entered = Locked(0)
        try policy.runtime.alive { (runtime: inout LuaPolicy.Runtime) throws in
            let stall = try runtime.vm.makeHostFunction { _ in
                entered.withLock { $0 += 1 }
                Thread.sleep(forTimeInterval: seconds)
                return []
            }
            _ = try runtime.vm.call(runtime.decide, [.ref(stall)])
        }
        return (policy, entered)
    }

    @Test func anOverrunIsATypedErrorAtTheDeadline() throws {
        let (policy, _) = try Self.stalling(seconds: 3)
        let started = Date()
        #expect {
            _ = try policy.decide(Self.context)
        } throws: { error in
            guard let error = error as? PolicyError else { return false }
            return error.kind == .deadline && error.message.contains("stalling") && error.message.contains("50 ms (the time limit)")
                && error.message.contains("5 ms (the deadline's margin)") && error.file == "stalling.lua"
        }
        // 55 ms is the deadline; the bound leaves room for a loaded machine, far below the 3 s stall.
        #expect(Date().timeIntervalSince(started) < 1.5)
        #expect(policy.overranDeadline)
    }

    @Test func anOverrunVMIsNeverEnteredAgainAndIsFreedWhenItsCallReturns() throws {
        let (policy, entered) = try Self.stalling(seconds: 1.5)
        weak let vm = policy.runtime.alive { $0.vm }
        let answer = policy.answer(Self.context)
        #expect((try? answer.decision.get()) == nil)
        // The stuck call still holds its thread: nothing else waits for it or enters the VM.
        let started = Date()
        #expect(throws: PolicyError.self) { _ = try policy.decide(Self.context) }
        #expect(throws: PolicyError.self) { try policy.restart(randomSeed: 1) }
        #expect(policy.takeTrace() == "")
        #expect(policy.memoryInUse == 0)
        #expect(Date().timeIntervalSince(started) < 1.0)
        if case .failure(let error) = policy.answer(Self.context).decision {
            #expect(error.kind == .deadline && error.message.contains("not run again"))
        } else {
            Issue.record("an abandoned VM answered")
        }
        #expect(entered.current == 1)
        // Once the stall returns, the thread frees the VM, though the policy is still here.
        let deadline = Date().addingTimeInterval(30)
        while vm != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(vm == nil)
        #expect(entered.current == 1)
        withExtendedLifetime(policy) {}
    }

    @Test func aLoadThatOverrunsIsATypedErrorAtTheDeadline() throws {
        let started = Date()
        #expect {
            _ = try LuaPolicy.loading(
                on: PolicyThread(name: "slow load"), limits: Self.limits, chunkName: "slow.lua"
            ) { () -> Result<Int, PolicyError> in
                Thread.sleep(forTimeInterval: 3)
                return .success(1)
            }
        } throws: { error in
            (error as? PolicyError)?.kind == .deadline && (error as? PolicyError)?.message.contains("while loading") == true
        }
        #expect(Date().timeIntervalSince(started) < 1.5)
    }

    @Test func withoutAMarginCallsRunOnTheCallersThreadAndWait() throws {
        var limits = Self.limits
        limits.deadlineMarginMilliseconds = nil
        let (policy, entered) = try Self.stalling(seconds: 0.2, limits: limits)
        #expect(try policy.decide(Self.context)?.reason == "answered")
        #expect(try policy.decide(Self.context)?.reason == "answered")
        #expect(entered.current == 2)
        #expect(!policy.overranDeadline)
    }

    @Test func aCallWithinTheDeadlineAnswersAndTheVMServesOn() throws {
        let (policy, entered) = try Self.stalling(seconds: 0.001)
        for _ in 0..<100 { #expect(try policy.decide(Self.context)?.reason == "answered") }
        #expect(entered.current == 100)
        #expect(!policy.overranDeadline)
    }

    /// A call the thread never took by the deadline (the system had not run the thread: a busy
    /// device, or this suite on two cores) never started, so it is withdrawn and runs on the
    /// caller's thread, and the policy stays in service: a busy device is not the policy's fault.
    @Test func aCallTheThreadNeverTookRunsOnTheCallerAndStopsNothing() throws {
        let held = DispatchSemaphore(value: 0)
        let locked = DeadlineLocked(0, thread: PolicyThread(name: "held", heldUntil: held), deadlineNanoseconds: 20_000_000)
        let caller = pthread_self()
        let first = locked.run { value -> (Int, Bool) in
            value += 1
            return (value, pthread_equal(pthread_self(), caller) != 0)
        }
        guard case .done(let (count, onCaller)) = first else {
            Issue.record("expected the call to run on the caller's thread, got \(first)")
            return
        }
        #expect(count == 1 && onCaller)
        #expect(!locked.isAbandoned)
        held.signal()
        let second = locked.run { value -> (Int, Bool) in
            value += 1
            return (value, pthread_equal(pthread_self(), caller) != 0)
        }
        guard case .done(let (secondCount, secondOnCaller)) = second else {
            Issue.record("expected the thread to answer once it runs, got \(second)")
            return
        }
        #expect(secondCount == 2 && !secondOnCaller)
    }
}
