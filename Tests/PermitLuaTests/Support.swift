import Testing

@testable import PermitLua

/// Small limits keep budget-exhaustion tests fast in debug builds. The wall-clock net is far
/// away so the instruction budget, which is deterministic, is what ends the loops.
/// The app's limits with the wall-clock net far away: tests about other things must not fail
/// because a loaded or sanitized machine took more than the app's 50 ms.
let testLimits: LuaLimits = {
    var limits = LuaLimits.default
    limits.timeLimitMilliseconds = 60_000
    return limits
}()

let fastLimits = LuaLimits(instructionsPerCall: 2_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 16 << 20, maxStringBytes: 4 << 20)

@discardableResult
func run(_ vm: LuaVM, _ source: String, _ args: [LuaValue] = [], chunk: String = "test.lua") throws(LuaError) -> [LuaValue] {
    let f = try vm.load(source, chunkName: chunk)
    defer { vm.release(f) }
    return try vm.call(f, args)
}

/// Runs `source`, expecting it to fail; returns the error.
func failure(_ vm: LuaVM, _ source: String, chunk: String = "test.lua") -> LuaError? {
    do {
        let r = try run(vm, source, chunk: chunk)
        Issue.record("expected an error, got \(r)")
        return nil
    } catch {
        return error
    }
}

/// The VM still serves a normal call, with a balanced stack.
func expectHealthy(_ vm: LuaVM, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(vm.stackTop == 0, sourceLocation: sourceLocation)
    do {
        let r = try run(vm, "local t = {} for i = 1, 10 do t[i] = i end return #t, ('ab'):rep(2), string.format('%d', 7)")
        #expect(r == [.integer(10), .string("abab"), .string("7")], sourceLocation: sourceLocation)
    } catch {
        Issue.record("VM unhealthy after error: \(error)", sourceLocation: sourceLocation)
    }
    #expect(vm.stackTop == 0, sourceLocation: sourceLocation)
}

extension LuaError.Kind {
    /// The call was stopped for using too much: the instruction budget, or the wall-clock
    /// safety net when the machine is slow (sanitizers, a loaded CI host) and the clock runs
    /// out before the instructions do.
    var stoppedForBudget: Bool { self == .instructionBudgetExceeded || self == .timeLimitExceeded }
}
