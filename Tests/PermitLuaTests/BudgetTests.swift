import Testing

@testable import PermitLua

@Suite struct BudgetTests {
    @Test(arguments: [
        ("plain loop", "while true do end"),
        ("repeat", "local i = 0 repeat i = i + 1 until false"),
        ("coroutine", "coroutine.wrap(function() while true do end end)()"),
        (
            "coroutine resumed in a loop",
            """
            local co = coroutine.create(function() while true do coroutine.yield() end end)
            while true do coroutine.resume(co) end
            """
        ),
        (
            "nested coroutines",
            """
            coroutine.wrap(function() coroutine.wrap(function() while true do end end)() end)()
            """
        ),
        ("pcall swallowing", "while true do pcall(function() while true do end end) end"),
        ("xpcall handler loops", "xpcall(function() error('x') end, function() while true do end end)"),
        (
            "error handler of pcall in coroutine",
            """
            while true do coroutine.resume(coroutine.create(function() while true do end end)) end
            """
        ),
        (
            "to-be-closed",
            """
            local x <close> = setmetatable({}, { __close = function() while true do end end })
            while true do end
            """
        ),
        ("sort comparator", "local t = {3, 2, 1} table.sort(t, function(a, b) while true do end end)"),
        ("__index loop", "local t = setmetatable({}, { __index = function() while true do end end }) return t.x"),
        ("table.move huge", "table.move({}, 1, 1 << 40, 2)"),
        (
            "plain find in a loop",
            """
            local s, n = string.rep('a', 1000000), string.rep('a', 4000) .. 'b'
            for i = 1, 1e9 do s:find(n, 1, true) end
            """
        ),
        (
            "text helpers in a loop",
            """
            local s = string.rep('a, ', 100000)
            for i = 1, 1e9 do permit.contains(s, 'b') permit.trim(s) permit.split(s, ',') end
            """
        ),
        ("xpcall handler loops after budget", "xpcall(function() while true do end end, function() while true do end end)"),
        (
            "nested xpcall handlers",
            """
            xpcall(function() xpcall(function() while true do end end, function() while true do end end) end,
                   function() while true do end end)
            """
        ),
        ("load of the largest text in a loop", "local s = string.rep(' ', 12000) for i = 1, 1e9 do load(s) end"),
    ])
    func infiniteWorkEndsWithABudgetError(name: String, source: String) {
        // A small budget so each case stops soon; work the budget does not see still hangs
        // until the far-off time limit and fails as a time error.
        let vm = LuaVM(
            limits: LuaLimits(instructionsPerCall: 250_000, timeLimitMilliseconds: 60_000, memoryBytes: 16 << 20, maxStringBytes: 4 << 20))
        let e = failure(vm, source, chunk: "loop.lua")
        #expect(e?.kind.stoppedForBudget == true, "\(name): \(String(describing: e))")
        #expect(e?.chunkName == "loop.lua", "\(name)")
        #expect(e?.line != nil, "\(name)")
        expectHealthy(vm)
    }

    @Test func defaultBudgetStopsALoop() {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, "local n = 0\nwhile true do n = n + 1 end", chunk: "spin.lua")
        #expect(e?.kind.stoppedForBudget == true)
        #expect(e?.line == 2)
        // The app's defaults: 2 M instructions or 50 ms, whichever this machine reaches first.
        let message = e?.message ?? ""
        #expect(
            message.hasPrefix("spin.lua:2: instruction budget of 2000000 exceeded")
                || message.hasPrefix("spin.lua:2: time limit of 50 ms exceeded"), "\(message)")
        #expect(e?.traceback?.contains("stack traceback:") == true)
        expectHealthy(vm)
    }

    @Test(arguments: [
        ("upper", "local s = string.rep('x', 4000000) for i = 1, 1e9 do local u = s:upper() end"),
        ("concat", "local s = string.rep('x', 4000000) for i = 1, 1e9 do local u = s .. 'y' end"),
        ("sub", "local s = string.rep('x', 4000000) for i = 1, 1e9 do local u = s:sub(2) end"),
        ("reverse", "local s = string.rep('x', 4000000) for i = 1, 1e9 do local u = s:reverse() end"),
        ("format", "local s = string.rep('x', 1000000) for i = 1, 1e9 do local u = string.format('%s', s) end"),
        ("table.concat", "local t = {} for i = 1, 1000 do t[i] = 'xy' end for i = 1, 1e9 do local u = table.concat(t) end"),
        ("byte", "local s = string.rep('x', 4000000) for i = 1, 1e9 do local u = { s:byte(1, 100000) } end"),
    ])
    func bigStringWorkIsChargedByAllocation(name: String, source: String) {
        // The wall-clock net far out of the way: on a loaded machine it fired first (a time
        // error, not the budget error this test is about); left unset, a charge that failed
        // would hang instead of failing.
        let vm = LuaVM(
            limits: LuaLimits(instructionsPerCall: 400_000, timeLimitMilliseconds: 60_000, memoryBytes: 16 << 20, maxStringBytes: 4 << 20))
        var e: LuaError?
        e = failure(vm, source, chunk: "big.lua")
        #expect(e?.kind.stoppedForBudget == true, "\(name): \(String(describing: e))")
        #expect(e?.message.contains("instruction budget") == true, "\(name)")
        expectHealthy(vm)
    }

    @Test func timeLimitCatchesWorkNoCounterSees() {
        // Comparing two distinct, equal 4 MB strings costs a memcmp per instruction.
        let vm = LuaVM(
            limits: LuaLimits(instructionsPerCall: 1 << 40, timeLimitMilliseconds: 200, memoryBytes: 32 << 20, maxStringBytes: 4 << 20))
        let e = failure(
            vm,
            """
            local s, t = string.rep('x', 4000000), string.rep('x', 3999999) .. 'x'
            local n = 0
            while true do if s == t then n = n + 1 end end
            """, chunk: "cmp.lua")
        #expect(e?.kind == .timeLimitExceeded, "\(String(describing: e))")
        #expect(e?.message.contains("time limit of 200 ms exceeded") == true)
        expectHealthy(vm)
    }

    @Test func budgetIsPerCall() throws {
        // The wall clock out of the way: this test is about the instruction budget, and a loaded
        // machine could stretch 20,000 iterations past the app's 50 ms.
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 60_000))
        let f = try vm.load("local n = 0 for i = 1, 20000 do n = n + i end return n", chunkName: "sum.lua")
        for _ in 0..<50 { #expect(try vm.call(f) == [200_010_000]) }
        #expect(vm.instructionsUsedByLastCall <= 100_000)
    }

    /// table.insert and table.remove are Lua's own, charged first for the elements they shift.
    @Test func tableInsertAndRemoveAreChargedForWhatTheyShift() throws {
        let vm = LuaVM(
            limits: LuaLimits(
                instructionsPerCall: 20_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 32 << 20, maxStringBytes: 4 << 20))
        let r = try run(
            vm,
            """
            local t = {}
            for i = 1, 5 do table.insert(t, i) end
            table.insert(t, 1, 0)
            table.insert(t, #t + 1, 6)
            local removed = table.remove(t, 1)
            local last = table.remove(t)
            local none = table.remove({})
            return table.concat(t, ','), removed, last, none
            """)
        #expect(r == [.string("1,2,3,4,5"), .integer(0), .integer(6), .nil])
        // 400,000 elements shifted up and then down: charged at least one unit each.
        try run(vm, "local t = {} for i = 1, 400000 do t[i] = i end")
        let filling = vm.instructionsUsedByLastCall
        try run(vm, "local t = {} for i = 1, 400000 do t[i] = i end table.insert(t, 1, 0) table.remove(t, 1)")
        #expect(vm.instructionsUsedByLastCall - filling >= 800_000, "\(vm.instructionsUsedByLastCall - filling)")
        // Out-of-range positions are Lua's own errors.
        #expect(failure(vm, "table.insert({}, 5, 'x')")?.message.contains("position out of bounds") == true)
        #expect(failure(vm, "table.insert({}, 1, 2, 3)")?.message.contains("wrong number of arguments to 'insert'") == true)
        expectHealthy(vm)
    }

    /// Lua's insert and remove read the length again themselves, so a __len that answered 1 to
    /// the charge could answer 2^40 to the shift loop, a C loop no hook interrupts. Tables with a
    /// __len metamethod are refused; the sandbox's read-only proxies still refuse the write.
    @Test(arguments: [
        "table.insert(setmetatable({}, { __len = function() return 1 << 40 end }), 1, 'x')",
        "table.remove(setmetatable({}, { __len = function() return 1 << 40 end }), 1)",
        """
        local n = 0
        table.insert(setmetatable({}, { __len = function() n = n + 1 return n == 1 and 1 or 1 << 40 end }), 1, 'x')
        """,
    ])
    func lengthsThatCouldLieAreRefused(source: String) {
        let vm = LuaVM(limits: fastLimits)
        var e: LuaError?
        e = failure(vm, source, chunk: "len.lua")
        #expect(e?.kind == .runtime, "\(String(describing: e))")
        #expect(e?.message.contains("on a table with a __len metamethod is not available in the sandbox") == true)
        #expect(failure(vm, "table.insert(string, 1)")?.message.contains("read-only") == true)
        expectHealthy(vm)
    }

    /// The search `string.find` does runs inside one C call, out of the count hook's reach: it
    /// is charged up front by the bytes it is given (one unit per 64).
    @Test func plainFindIsChargedByTheBytesItSearches() throws {
        let vm = LuaVM(limits: testLimits)
        let big = LuaValue.string(String(repeating: "a", count: 4 << 20))
        #expect(try run(vm, "local s = ... return s:find('b', 1, true)", [big]) == [.nil])
        #expect(vm.instructionsUsedByLastCall >= (4 << 20) / 64)
        #expect(try run(vm, "local s = ... return s:find('b', (4 << 20) - 10, true)", [big]) == [.nil])
        #expect(vm.instructionsUsedByLastCall < 100)
    }
}
