import Testing

@testable import PermitLua

// Lua's own API, lauxlib and lualib included, from whichever Lua the build links: Permit's own on
// Apple platforms and with the trait LuaFromSource, the system's otherwise.
#if canImport(Darwin) || LuaFromSource
import CPermitLua
#else
import CPermitSystemLua
#endif

/// Runs `source` on a stock Lua state of the very library the sandbox links (every standard
/// library open, no sandbox) and returns its one result as text: what a policy author who knows
/// Lua 5.4 expects the sandbox to answer.
func stockLua(_ source: String, chunk: String = "test.lua") -> String {
    guard let L = luaL_newstate() else { return "(no Lua state)" }
    defer { lua_close(L) }
    luaL_openlibs(L)
    let loaded = luaL_loadbufferx(L, source, source.utf8.count, "@" + chunk, nil)
    if loaded == LUA_OK { _ = lua_pcallk(L, 0, 1, 0, 0, nil) }
    guard let text = lua_tolstring(L, -1, nil) else { return "(\(String(cString: lua_typename(L, lua_type(L, -1)))))" }
    return String(cString: text)
}

/// The sandbox's answer to the same source, as text.
func sandboxLua(_ vm: LuaVM, _ source: String, chunk: String = "test.lua") -> String {
    do {
        switch try run(vm, source, chunk: chunk).first {
        case .string(let s)?: return s
        case let value?: return "(\(value.typeName))"
        case nil: return "(no value)"
        }
    } catch {
        return "(raised \(error.kind): \(error.message))"
    }
}

/// Lua in the sandbox behaves as stock Lua 5.4 does, checked against a stock state of the same
/// library: where the sandbox wraps a library function, its errors read as Lua's own, and
/// `pcall` catches a bad argument as the argument error it is.
@Suite struct StockLuaTests {
    /// The error of `call`, caught by pcall inside a Lua function (so Lua names the function
    /// by the field the script called, and prefixes the script's line).
    static func caught(_ call: String) -> String {
        "local ok, e = pcall(function()\n\(call)\nend) return tostring(e)"
    }

    /// One bad call of every library function the sandbox wraps, and of those it replaces.
    static let wrappedFunctionCalls = [
        "table.sort({ 3, 1 }, 1)", "table.sort(1)",
        "table.unpack({}, 'x')",
        "table.insert({}, 5, 1)", "table.insert({}, 1, 2, 3)", "table.insert(1, 2)",
        "table.remove({}, 5)", "table.remove(1)",
        "table.move({}, 'x')", "table.move(1, 1, 2, 1)", "table.move({}, 1, 2)",
        "string.byte({})", "('x'):byte({})",
        "string.format('%d', 'x')", "string.format('%y', 1)", "('%d'):format('x')",
        "string.rep()", "string.rep('x', 'y')", "string.find({})",
        "utf8.len({})", "utf8.len('abc', 5)", "utf8.len('abc', 1, 9)",
        "utf8.offset('abc', 1, 5)", "utf8.offset('abc', 'x')",
        "utf8.codepoint({})", "utf8.codepoint('abc', 0)", "utf8.codepoint('abc', 1, 4)",
        "utf8.char('x')", "utf8.codes(1)",
        "next(1)", "next({}, 'absent')", "pairs()",
        "rawget(1)", "rawset({}, nil, 1)", "rawset(1)", "rawlen(1)",
        "load('x', {})",
        "math.randomseed('x')", "math.randomseed(1, 'y')",
        "coroutine.resume(1)", "coroutine.wrap(1)", "coroutine.close(1)",
        "coroutine.close(coroutine.running())",
        "local co co = coroutine.create(function() local ok, e = pcall(coroutine.close, co) error(e, 0) end) "
            + "local _, e = coroutine.resume(co) error(e, 0)",
        "getmetatable()", "setmetatable(1)", "setmetatable({}, 1)", "tostring()", "xpcall()",
    ]

    @Test(arguments: wrappedFunctionCalls)
    func wrappedFunctionsNameThemselvesInArgumentErrors(call: String) {
        let vm = LuaVM(limits: testLimits)
        let source = Self.caught(call)
        let expected = stockLua(source)
        #expect(!expected.hasPrefix("("), "stock: \(expected)")
        #expect(sandboxLua(vm, source) == expected)
    }

    /// Called by pcall itself (no Lua caller to name it), Lua names a function by where it sits
    /// in the loaded libraries: `string.format`, and a base function by its bare name.
    @Test(arguments: [
        "pcall(string.format, '%d', 'x')", "pcall(table.unpack, {}, 1, 1e7)", "pcall(next, 1)", "pcall(rawlen, 1)",
        "pcall(table.move, {}, 1, math.maxinteger, 2)", "pcall(utf8.char, 'x')",
    ])
    func functionsCalledByPcallAreNamedAsInLua(call: String) {
        let vm = LuaVM(limits: testLimits)
        let source = "local ok, e = \(call) return tostring(e)"
        let expected = stockLua(source)
        #expect(!expected.hasPrefix("("), "stock: \(expected)")
        #expect(sandboxLua(vm, source) == expected)
    }

    /// A range Lua refuses is the argument error pcall catches, not a budget error the sandbox
    /// charged before Lua could look at it.
    @Test(arguments: [
        "table.unpack({}, 1, 1e7)", "table.unpack({}, math.mininteger, math.maxinteger)", "table.unpack({}, 1, 1e6)",
        "table.move({}, 1, math.maxinteger, 2)", "table.move({}, -1, math.maxinteger, 1)",
        "utf8.codepoint('abc', 1, 1 << 40)", "utf8.codepoint('abc', -(1 << 40))",
        "utf8.len('abc', 1 << 40)", "utf8.offset('abc', 1, 1 << 40)",
        "table.sort(setmetatable({}, { __len = function() return math.maxinteger end }))",
    ])
    func badRangesAreArgumentErrors(call: String) {
        let vm = LuaVM(limits: testLimits)
        let source = Self.caught(call)
        let expected = stockLua(source)
        #expect(expected.hasPrefix("test.lua:"), "stock: \(expected)")
        #expect(sandboxLua(vm, source) == expected)
        expectHealthy(vm)
    }

    /// Large work inside a valid range is still charged before it runs.
    @Test(arguments: [
        ("table.unpack", "return select('#', table.unpack({}, 1, 30000))"),
        ("table.move", "return #table.move({}, 1, 200000, 1)"),
        ("utf8.codepoint", "return select('#', utf8.codepoint(string.rep('x', 20000), 1, -1))"),
        ("table.sort", "local t = {} for i = 1, 90000 do t[i] = -i end table.sort(t) return t[1]"),
    ])
    func largeWorkInAValidRangeIsStillCharged(name: String, source: String) {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 0))
        let e = failure(vm, source)
        #expect(e?.kind == .instructionBudgetExceeded, "\(name): \(String(describing: e))")
        expectHealthy(vm)
    }

    /// table.unpack and table.sort read a __len metamethod once, as Lua's do.
    @Test func lenMetamethodsAreCalledOnce() {
        let vm = LuaVM(limits: testLimits)
        let source = """
            local calls = 0
            local t = setmetatable({ 3, 1, 2 }, { __len = function(t) calls = calls + 1 return rawlen(t) end })
            local a, b, c = table.unpack(t)
            local after_unpack = calls
            table.sort(t)
            return after_unpack .. ' ' .. calls .. ' ' .. a .. b .. c .. ' ' .. table.concat(t, ',', 1, 3)
            """
        #expect(stockLua(source) == "1 2 312 1,2,3")
        #expect(sandboxLua(vm, source) == "1 2 312 1,2,3")
    }

    /// load names a chunk by its text when given no name, and mode "b" refuses text.
    @Test(arguments: [
        "return select(2, load('x x'))",
        "return select(2, load('x x', 'rules'))",
        "return select(2, load('local a = 1\\nx x'))",
        "return select(2, load(string.rep('a', 50) .. ' x'))",
        "return select(2, load('return 1', 'n', 'b'))",
        "return select(2, load('', nil, 'b'))",
        "return tostring(load('return 1', 'n', 't')())",
        "return tostring(load(42))",
        "local ok, e = pcall(load('error(\"boom\")')) return e",
    ])
    func loadNamesAndModesAreLuas(source: String) {
        let vm = LuaVM(limits: testLimits)
        #expect(sandboxLua(vm, source) == stockLua(source))
    }

    @Test func binaryChunksStayRefusedWhateverTheMode() {
        let vm = LuaVM(limits: testLimits)
        for mode in ["b", "bt", "t"] {
            let r = sandboxLua(vm, "return select(2, load('\\27Lua', 'n', '\(mode)'))")
            #expect(r == "binary chunks are not allowed in the sandbox", "\(mode): \(r)")
        }
    }

    /// next, rawget and rawlen see a read-only table's contents, as they see the table in Lua.
    @Test func rawAccessSeesReadOnlyTables() throws {
        let vm = LuaVM(limits: testLimits)
        let source = """
            local k, v = next(string)
            local found = rawget(string, k) == v
            local n = 0 local key = next(math) while key do n = n + 1 key = next(math, key) end
            local m = 0 for _ in pairs(math) do m = m + 1 end
            return tostring(k ~= nil) .. ' ' .. tostring(found) .. ' ' .. type(rawget(string, 'rep')) .. ' '
              .. tostring(rawget(table, 'absent')) .. ' ' .. tostring(n == m) .. ' ' .. rawlen(string)
            """
        #expect(stockLua(source) == "true true function nil true 0")
        #expect(sandboxLua(vm, source) == "true true function nil true 0")

        let list = try vm.store(.table(LuaTable(array: ["a", "b", "c"])))
        let params = try vm.store(.table(LuaTable(["flag": true])))
        let f = try vm.load(
            """
            local list, params = ...
            return rawlen(list), next(params), rawget(params, 'flag'), next({}) == nil and next(params) ~= nil
            """, chunkName: "ro.lua")
        #expect(try vm.call(f, [.ref(list), .ref(params)]) == [3, "flag", true, true])
        // Still read-only.
        #expect(failure(vm, "rawset(string, 'x', 1)")?.message.contains("read-only") == true)
    }

    /// An error inside a function made by coroutine.wrap gets the position where it was called,
    /// as in Lua; a dead one says so at the caller's line.
    @Test(arguments: [
        "local f = coroutine.wrap(function() error('boom') end)\nlocal ok, e = pcall(function()\nf()\nend) return e",
        "local f = coroutine.wrap(function() end) f()\nlocal ok, e = pcall(function()\nf()\nend) return e",
        "local f = coroutine.wrap(function() error({}) end)\nlocal ok, e = pcall(function()\nf()\nend) return type(e)",
        "local f = coroutine.wrap(function() coroutine.yield(1) error('late', 0) end)\nf()\n"
            + "local ok, e = pcall(function()\nf()\nend) return e",
    ])
    func wrappedCoroutineErrorsCarryTheCallersPosition(source: String) {
        let vm = LuaVM(limits: testLimits)
        #expect(sandboxLua(vm, source) == stockLua(source))
    }

    /// The sandbox's own errors pass through coroutine.wrap unchanged (the host recognises them).
    @Test func budgetErrorsPassThroughWrapUnchanged() {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 0))
        let e = failure(vm, "local f = coroutine.wrap(function() while true do end end)\nf()")
        #expect(e?.kind == .instructionBudgetExceeded, "\(String(describing: e))")
        #expect(e?.message.hasPrefix("test.lua:1: instruction budget") == true, "\(String(describing: e))")
        let s = failure(vm, "local f = coroutine.wrap(function() return ('x'):rep(1 << 40) end)\nf()")
        #expect(s?.kind == .stringTooLarge, "\(String(describing: s))")
        expectHealthy(vm)
    }
}

/// Metatables are the script's own tables, so changing one after setmetatable changes the
/// tables that use it, as in Lua; __gc and __mode can never be added to one.
@Suite struct LiveMetatableTests {
    @Test(arguments: [
        "local mt = {} local t = setmetatable({}, mt) mt.__index = function(_, k) return k .. '!' end return t.x",
        "local mt = { __index = { x = 'old' } } local t = setmetatable({}, mt) mt.__index = { x = 'new' } return t.x",
        """
        local V = {} local a = setmetatable({ n = 1 }, V) local b = setmetatable({ n = 2 }, V)
        V.__add = function(p, q) return p.n + q.n end V.__tostring = function(p) return 'V' .. p.n end
        return tostring(a + b) .. tostring(a)
        """,
        """
        local Base = {} Base.__index = Base function Base:name() return 'base' end
        local Derived = setmetatable({}, { __index = Base }) Derived.__index = Derived
        local obj = setmetatable({}, Derived)
        function Derived:name() return 'derived' end
        Derived.__tostring = function() return 'a derived' end
        return obj:name() .. ' ' .. tostring(obj)
        """,
        "local C = {} C.__index = C setmetatable(C, C) C.x = 'self' return C.x .. tostring(rawequal(getmetatable(C), C))",
        "local D = setmetatable({}, string) D.__index = D local o = setmetatable({}, D) D.k = 1 "
            + "return o.k .. tostring(rawequal(getmetatable(D), string))",
        "local mt = {} local t = setmetatable({}, mt) return tostring(getmetatable(mt)) .. tostring(rawequal(getmetatable(t), mt))",
        "local mt = {} setmetatable({}, mt) mt[1] = 'a' mt.k = 'b' local n = 0 for _ in pairs(mt) do n = n + 1 end return n .. #mt",
        "local mt = {} setmetatable({}, mt) local ok, e = pcall(function()\nmt[nil] = 1\nend) return e",
        "local mt = {} setmetatable({}, mt) local ok, e = pcall(function()\nmt[0/0] = 1\nend) return e",
        // chains, which the sandbox walks itself: the same values, tables and messages as Lua
        """
        local A = { a = 1 } local B = setmetatable({ b = 2 }, { __index = A }) local C = setmetatable({}, { __index = B })
        local D = setmetatable({}, { __index = function(t, k) return k .. '?' end })
        local E = setmetatable({}, { __index = setmetatable({}, { __index = D }) })
        return C.a .. C.b .. tostring(C.c) .. E.z
        """,
        "local B = setmetatable({}, { __index = function(t) return t end }) local A = setmetatable({}, { __index = B }) "
            + "return tostring(A.x == B)",
        "local store = {} local mid = setmetatable({}, { __newindex = store }) local t = setmetatable({}, { __newindex = mid }) "
            + "t.x = 1 return tostring(rawget(t, 'x')) .. tostring(rawget(mid, 'x')) .. store.x",
        "local mid = setmetatable({ x = 0 }, { __newindex = {} }) local t = setmetatable({}, { __newindex = mid }) t.x = 5 return tostring(mid.x)",
        """
        local log = {} local P = setmetatable({}, { __newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v) end })
        local t = setmetatable({}, { __newindex = P }) t.y = 2
        return #log .. tostring(rawget(P, 'y')) .. tostring(rawget(t, 'y'))
        """,
        "local a, b = {}, {} setmetatable(a, { __index = b }) setmetatable(b, { __index = a }) "
            + "local ok, e = pcall(function()\nreturn a.x\nend) return e",
        "local a, b = {}, {} setmetatable(a, { __newindex = b }) setmetatable(b, { __newindex = a }) "
            + "local ok, e = pcall(function()\na.x = 1\nend) return e",
        "local t = setmetatable({}, { __index = 'abc' }) return t.upper('q')",
        "local V = { __eq = function() return true end } local a, b = setmetatable({}, V), setmetatable({}, V) "
            + "V.__lt = function() return true end return tostring(a == b) .. tostring(a < b)",
        "local mt = { __index = { x = 1 } } local t = setmetatable({}, mt) mt.__index = nil return tostring(t.x)",
        "local mt = { __newindex = {} } local t = setmetatable({}, mt) mt.__newindex = nil t.k = 1 return tostring(rawget(t, 'k'))",
        "local f = setmetatable({}, { __call = function(self, a) return a * 2 end }) return tostring(f(21))",
    ])
    func metamethodsAddedLaterApply(source: String) {
        let vm = LuaVM(limits: testLimits)
        let expected = stockLua(source)
        #expect(!expected.hasPrefix("("), "stock: \(expected)")
        #expect(sandboxLua(vm, source) == expected)
    }

    /// Every way to add __mode or __gc to a table in use as a metatable is refused, with what to
    /// do instead.
    @Test(arguments: [
        "local mt = {} setmetatable({}, mt) mt.__mode = 'k'",
        "local mt = {} setmetatable({}, mt) rawset(mt, '__mode', 'k')",
        "local mt = {} setmetatable({}, mt) load('__mode = \"k\"', 'x', 't', mt)()",
        "local mt = {} setmetatable({}, mt) setmetatable(mt, nil) mt.__mode = 'k'",
        "local mt = {} setmetatable({}, mt) setmetatable(mt, {}) mt.__mode = 'k'",
        "local mt = {} setmetatable(mt, { __newindex = function(t, k, v) rawset(t, k, v) end }) setmetatable({}, mt) mt.__mode = 'k'",
        "local D = setmetatable({}, {}) setmetatable({}, D) D.__mode = 'k'",
        "local C = {} setmetatable(C, C) C.__mode = 'k'",
    ])
    func modeCannotBeAddedToAMetatableInUse(source: String) {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, source)
        #expect(e?.kind == .runtime, "\(String(describing: e))")
        #expect(e?.message.contains("weak tables (__mode) are not available in the sandbox") == true, "\(String(describing: e))")
        expectHealthy(vm)
    }

    @Test(arguments: [
        "local mt = {} setmetatable({}, mt) mt.__gc = function() end",
        "local mt = {} setmetatable({}, mt) rawset(mt, '__gc', print)",
    ])
    func gcCannotBeAddedToAMetatableInUse(source: String) {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, source)
        #expect(e?.message.contains("__gc metamethods are not available in the sandbox") == true, "\(String(describing: e))")
    }

    /// The table stays strong: a key only the weak side would drop survives a collection.
    @Test func aMetatableInUseNeverMakesItsTablesWeak() throws {
        let vm = LuaVM(limits: testLimits)
        let chunk = try vm.load(
            """
            local t
            return function(step)
              if step == 1 then
                local mt = {}
                t = setmetatable({}, mt)
                pcall(function() mt.__mode = "k" end)
                pcall(rawset, mt, "__mode", "k")
                t[{}] = true
                return 0
              end
              local n = 0 for _ in pairs(t) do n = n + 1 end return n
            end
            """, chunkName: "late.lua")
        let step = try vm.call(chunk, keepFunctions: true)
        guard case .ref(let f)? = step.first else {
            Issue.record("expected a function")
            return
        }
        _ = try vm.call(f, [.integer(1)])
        vm.collectGarbage()
        #expect(try vm.call(f, [.integer(2)]) == [.integer(1)])
    }

    /// The host's tables (the environment, ctx) cannot be metatables: their own metatable is
    /// Permit's, which the host recognises them by.
    @Test func hostTablesCannotBeMetatables() {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, "setmetatable({}, _ENV)")
        #expect(e?.message.contains("cannot be a metatable in the sandbox") == true, "\(String(describing: e))")
        expectHealthy(vm)
    }
}
