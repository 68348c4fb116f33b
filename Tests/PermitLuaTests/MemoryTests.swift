import Testing

@testable import PermitLua

@Suite struct MemoryTests {
    @Test(arguments: [
        ("table bomb", "local t = {} for i = 1, 1e9 do t[i] = { i } end", LuaError.Kind.memoryExhausted),
        ("wide table", "local t = {} for i = 1, 1e9 do t['k' .. i] = true end", .memoryExhausted),
        ("concatenation", "local s = 'x' while true do s = s .. s end", .memoryExhausted),
        ("concat many", "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 4000) .. i end", .memoryExhausted),
        (
            "table.concat",
            "local t = {} for i = 1, 5000 do t[i] = string.rep('x', 4000) end local s = table.concat(t) .. table.concat(t) .. table.concat(t)",
            .memoryExhausted
        ),
        ("string.rep huge", "return string.rep('x', 1e12)", .stringTooLarge),
        ("string.rep sep", "return string.rep('x', 1e6, string.rep('y', 100))", .stringTooLarge),
        ("split bomb", "local s = string.rep(',', 4e6) local t = {} for i = 1, 1e9 do t[i] = permit.split(s, ',') end", .memoryExhausted),
        ("coroutines", "local t = {} for i = 1, 1e9 do t[i] = coroutine.create(print) end", .memoryExhausted),
        (
            "memory error swallowed then rethrown",
            "local ok, e = pcall(function() local s = 'x' while true do s = s .. s end end) error(e, 0)", .memoryExhausted
        ),
    ])
    func bombsEndWithATypedError(name: String, source: String, kind: LuaError.Kind) {
        let vm = LuaVM(
            limits: LuaLimits(
                instructionsPerCall: 200_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 8 << 20, maxStringBytes: 4 << 20))
        let e = failure(vm, source, chunk: "bomb.lua")
        #expect(e?.kind == kind, "\(name): \(String(describing: e))")
        #expect(e?.chunkName == "bomb.lua", "\(name)")
        #expect(vm.peakMemory <= (8 << 20) + (1 << 16), "\(name) peak \(vm.peakMemory)")
        expectHealthy(vm)
    }

    /// A call that fails leaves what it built behind; the VM collects it before returning, so
    /// the app gets the memory back at once and the next call's time limit does not pay for
    /// the collection (under a sanitizer, that collection alone once took a 100 ms limit).
    @Test(arguments: [
        ("budget", "local t = {} for i = 1, 1e12 do t[i % 120000 + 1] = { i } end", LuaError.Kind.instructionBudgetExceeded),
        ("runtime", "local t = {} for i = 1, 120000 do t[i] = { i } end error('stop')", .runtime),
        ("memory", "local t = {} for i = 1, 1e12 do t[i] = { i } end", .memoryExhausted),
    ])
    func aFailedCallsGarbageIsCollectedBeforeTheNextCall(name: String, source: String, kind: LuaError.Kind) throws {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 5_000_000, timeLimitMilliseconds: 0, memoryBytes: 24 << 20))
        vm.collectGarbage()
        let before = vm.memoryInUse
        let e = failure(vm, source)
        #expect(e?.kind == kind, "\(name): \(String(describing: e))")
        #expect(vm.peakMemory > before + (8 << 20), "\(name) built only \(vm.peakMemory - before) bytes")
        #expect(vm.memoryInUse < before + (64 << 10), "\(name): \(vm.memoryInUse - before) bytes left after the call")
    }

    @Test func deepLuaRecursionOverflows() {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 200_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 64 << 20))
        let e = failure(vm, "local function f(n) return f(n + 1) + 1 end return f(1)", chunk: "deep.lua")
        #expect(e?.kind == .runtime)
        #expect(e?.message.contains("stack overflow") == true)
        #expect(e?.line == 1)
        expectHealthy(vm)
        // With a smaller cap the same recursion hits memory first: still typed.
        let small = LuaVM(limits: LuaLimits(instructionsPerCall: 200_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 4 << 20))
        let e2 = failure(small, "local function f(n) return f(n + 1) + 1 end return f(1)")
        #expect(e2?.kind == .memoryExhausted || e2?.kind == .runtime)
        expectHealthy(small)
    }

    @Test(arguments: [
        "local function f() local _, e = xpcall(f, function(m) return m end) error(e, 0) end return f()",
        "local t t = setmetatable({}, { __index = function(_, k) return t[k] end }) return t.x",
        "local function f() return coroutine.wrap(f)() end return f()",
        "local function f() return table.sort({ 1, 2 }, function() return f() end) end return f()",
        "local t t = setmetatable({}, { __tostring = function() return tostring(t) end }) return tostring(t)",
        "return load(string.rep('(', 10000) .. '1' .. string.rep(')', 10000))()",
    ])
    func cStackOverflowIsAnError(source: String) {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, source)
        // coroutine.wrap recursion meets the sandbox's coroutine nesting limit first.
        #expect(e?.kind == .runtime || e?.kind == .errorInErrorHandling || e?.kind == .nestingTooDeep, "\(String(describing: e))")
        expectHealthy(vm)
    }

    @Test func recursionUnderPcallCompletes() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(vm, "local function f() return pcall(f) end return f()")
        // The innermost pcall catches the C stack overflow; every outer one succeeds.
        #expect(r.first == true)
        #expect(r.last?.stringValue?.contains("stack overflow") == true)
        expectHealthy(vm)
    }

    @Test func errorObjectsAreNeverStringifiedByTheHost() {
        let vm = LuaVM(limits: fastLimits)
        let e = failure(vm, "error(setmetatable({}, { __tostring = function() while true do end end }))")
        #expect(e?.kind == .runtime)
        #expect(e?.message == "(error object is a table value)")
        let e2 = failure(vm, "error(setmetatable({}, { __tostring = function() error('boom') end }))")
        #expect(e2?.message == "(error object is a table value)")
        // The script's own tostring of such an object runs under the budget.
        let e3 = failure(
            vm,
            """
            local ok, err = pcall(error, setmetatable({}, { __tostring = function() while true do end end }))
            return tostring(err)
            """)
        #expect(e3?.kind.stoppedForBudget == true)
        #expect(failure(vm, "error(42)")?.message == "42")
        #expect(failure(vm, "error()")?.message == "nil")
        expectHealthy(vm)
    }

    @Test func syntaxAndRuntimeErrorsNameChunkAndLine() {
        let vm = LuaVM(limits: testLimits)
        do {
            _ = try vm.load("local x = 1\nlocal y = \n\n)", chunkName: "policies/polite.lua")
            Issue.record("compiled")
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.chunkName == "policies/polite.lua")
            #expect(error.line == 4)
            #expect(error.message.hasPrefix("policies/polite.lua:4:"))
        }
        let e = failure(vm, "local ctx = {}\n\nreturn ctx.platform.version", chunk: "polite.lua")
        #expect(e?.kind == .runtime)
        #expect(e?.chunkName == "polite.lua")
        #expect(e?.line == 3)
        #expect(e?.message.contains("attempt to index a nil value") == true)
        #expect(e?.traceback?.contains("polite.lua:3") == true)
        let e2 = failure(vm, "\nerror('custom')", chunk: "p.lua")
        #expect(e2?.message == "p.lua:2: custom")
        #expect(e2?.line == 2)
        // Errors raised by C functions point at the calling line.
        let e3 = failure(vm, "\n\nreturn ('x'):rep({})", chunk: "c.lua")
        #expect(e3?.line == 3)
        // Error with a table value: position taken from the traceback.
        let e4 = failure(vm, "\nerror({})", chunk: "t.lua")
        #expect(e4?.chunkName == "t.lua")
        #expect(e4?.line == 2)
        expectHealthy(vm)
    }

    @Test func stackBalanceAndFlatMemoryOver20kCalls() throws {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 60_000, memoryBytes: 1 << 20))
        let f = try vm.load(
            """
            local n, mode = ...
            if mode == 1 then error('planned ' .. n) end
            if mode == 2 then while true do end end
            if mode == 3 then local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(10000) .. i end end
            if mode == 4 then return ('x'):rep(1e9) end
            if mode == 5 then return nil + n end
            local t = { n = n, list = { n, n + 1 }, s = ('k'):rep(3) .. n }
            return t, n * 2, 'ok'
            """, chunkName: "balance.lua")
        var counts = [Int](repeating: 0, count: 7)
        var baseline = 0
        let total = 20_000
        do {
            for i in 0..<total {
                let mode: Int64 = i % 1000 == 999 ? 3 : i % 100 == 50 ? 2 : i % 10 == 3 ? 1 : i % 37 == 0 ? 4 : i % 53 == 0 ? 5 : 0
                do {
                    let r = try vm.call(f, [.integer(Int64(i)), .integer(mode)])
                    if r.count == 3, r[2] == "ok", r[1] == .integer(Int64(i) * 2) { counts[0] += 1 }
                } catch {
                    switch error.kind {
                    case .runtime: counts[1] += 1
                    case .instructionBudgetExceeded, .timeLimitExceeded: counts[2] += 1
                    case .memoryExhausted: counts[3] += 1
                    case .stringTooLarge: counts[4] += 1
                    default: counts[5] += 1
                    }
                }
                if vm.stackTop != 0 { counts[6] += 1 }
                if i % 5000 == 4999 {
                    do { _ = try vm.load("return +", chunkName: "bad.lua") } catch { counts[1] += 1 }
                }
                if i == 2000 {
                    vm.collectGarbage()
                    baseline = vm.memoryInUse
                }
            }
        }
        vm.collectGarbage()
        let growth = vm.memoryInUse - baseline
        print("20k calls: outcomes \(counts); memory \(baseline) -> \(vm.memoryInUse)")
        #expect(counts[6] == 0)
        #expect(counts[0] > 16_000)
        #expect(counts[1] > 1_800)
        #expect(counts[2] > 180)
        #expect(counts[3] >= 19)
        #expect(counts[4] > 0)
        #expect(counts[5] == 0)
        #expect(abs(growth) < 3 * 1024)  // 0.17 bytes a call over the 18k measured ones, as the 100k run allowed
        #expect(vm.stackTop == 0)
        #expect(vm.liveReferenceCount == 1)
    }
}
