import Testing

@testable import PermitLua

@Suite struct SandboxTests {
    static let allowed = [
        "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber", "tostring", "type", "xpcall",
        "rawequal", "rawget", "rawlen", "rawset", "setmetatable", "getmetatable", "print", "load",
        "string", "table", "math", "utf8", "coroutine", "permit",
    ]
    static let removed = [
        "io", "os", "package", "require", "debug", "dofile", "loadfile", "collectgarbage", "warn", "_G", "_VERSION",
        "loadstring", "unpack", "module", "setfenv", "getfenv", "newproxy", "gcinfo", "bit32",
    ]

    @Test func everyAllowedGlobalIsPresent() throws {
        let vm = LuaVM(limits: testLimits)
        for name in Self.allowed {
            let r = try run(vm, "return type(\(name))")
            #expect(r.first == "function" || r.first == "table", "\(name) missing: \(r)")
        }
    }

    @Test func everyRemovedGlobalIsAbsent() throws {
        let vm = LuaVM(limits: testLimits)
        for name in Self.removed {
            let r = try run(vm, "return \(name) == nil")
            #expect(r == [true], "\(name) should be absent")
        }
        #expect(try run(vm, "return string.dump == nil, ('').dump == nil") == [true, true])
    }

    @Test func libraryContentsAreComplete() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            """
            local n = {}
            for _, lib in ipairs{ 'string', 'table', 'math', 'utf8', 'coroutine', 'permit' } do
              local c = 0
              for k, v in pairs(_ENV[lib]) do c = c + 1 end
              n[#n + 1] = c
            end
            return table.unpack(n)
            """)
        // string: 17 functions minus dump (match, gmatch and gsub are there, and refuse);
        // table: 7; utf8: 6; coroutine: 8; permit: 14 helpers + forget
        // math: 27 in Lua 5.4, 35 where the distribution keeps LUA_COMPAT_MATHLIB (Debian does).
        #expect(r.count == 6)
        #expect(r[0] == 16 && r[1] == 7 && r[3] == 6 && r[4] == 8 && r[5] == 15)
        #expect(r[2] == 27 || r[2] == 35)
        #expect(
            try run(vm, "return math.type(math.maxinteger), type(string.format), type(utf8.charpattern)") == [
                "integer", "function", "string",
            ])
    }

    @Test(arguments: [
        ("os", "return os.execute('true')"),
        ("os via _ENV", "return _ENV.os.getenv('HOME')"),
        ("io", "return io.open('/etc/passwd')"),
        ("io via string metatable", "return getmetatable('').__index.io"),
        ("require", "return require('os')"),
        ("package", "return package.loadlib('libc.so.6', 'system')"),
        ("debug", "return debug.getregistry()"),
        ("dofile", "return dofile('/etc/passwd')"),
        ("loadfile", "return loadfile('/etc/passwd')"),
        ("collectgarbage", "return collectgarbage('count')"),
        ("string.dump", "return string.dump(function() end)"),
        ("string.dump method", "return (''):dump()"),
        ("load with function reader", "return load(function() return nil end)"),
    ])
    func escapeAttemptsFail(name: String, source: String) {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, source, chunk: "escape.lua")
        #expect(e?.kind == .runtime, "\(name): \(String(describing: e))")
        #expect(e?.chunkName == "escape.lua", "\(name)")
        #expect(e?.line == 1, "\(name)")
        expectHealthy(vm)
    }

    @Test func binaryChunksAreRefused() throws {
        let vm = LuaVM(limits: testLimits)
        let binary = "\u{1B}Lua\u{54}\u{00}\u{19}\u{93}\r\n\u{1A}\n"
        do {
            _ = try vm.load(binary, chunkName: "compiled.luac")
            Issue.record("binary chunk accepted")
        } catch {
            #expect(error.kind == .binaryChunkRefused)
            #expect(error.message.contains("compiled.luac"))
            #expect(error.message.contains("refused"))
        }
        // Inside the sandbox `load` refuses them too (and names why).
        let r = try run(vm, "return load('\\27Lua\\84\\0 rest')")
        #expect(r == [.nil, "binary chunks are not allowed in the sandbox"])
        let r2 = try run(vm, "return load('\\27Lua', 'x', 'b')")
        #expect(r2.first == .nil)
        expectHealthy(vm)
    }

    @Test func sandboxLoadCompilesTextIntoAFreshSandboxEnvironment() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            """
            local f = assert(load('x = 41; return x + 1, os, string.rep("a", 2)'))
            local a, b, c = f()
            local env = {}
            assert(load('y = 1', 'chunk', 't', env))()
            local ok, msg = load('return +', 'broken')
            local ok2, spoof = pcall(load('error("x")', '@policy.lua'))
            return a, b == nil, c, x, env.y, ok, msg, spoof
            """)
        #expect(
            r == [
                42, true, "aa", .nil, 1, .nil, .string("[string \"broken\"]:1: unexpected symbol near '+'"),
                .string("[string \"policy.lua\"]:1: x"),
            ])
    }

    @Test func globalsOfAChunkStayInItsOwnEnvironment() throws {
        let vm = LuaVM(limits: testLimits)
        let a = try vm.load("shared = 'a'; function get() return shared end; return get", chunkName: "a.lua")
        let b = try vm.load("return shared, string ~= nil", chunkName: "b.lua")
        let getter = try vm.call(a, keepFunctions: true)
        #expect(try vm.call(b) == [.nil, true])
        #expect(try vm.call(getter[0].refValue!) == ["a"])
        vm.releaseRefs(in: getter[0])
        vm.release(a)
        vm.release(b)
        #expect(vm.liveReferenceCount == 0)
    }

    @Test func tamperingDoesNotReachTheNextCall() throws {
        let vm = LuaVM(limits: testLimits)
        let attempts = [
            "string.rep = nil", "string.evil = 1", "rawset(string, 'rep', nil)", "table.insert(string, 1)",
            "getmetatable('').__index.rep = nil", "setmetatable(string, {})", "math.floor = nil",
            "rawset(math, 'floor', nil)", "permit.days = function() return 0 end", "rawset(permit, 'days', nil)",
            "table.concat = nil", "coroutine.wrap = nil", "utf8.char = nil",
            "local _, s = pairs(string); rawset(s, 'rep', nil)", "local _, s = pairs(string); s.rep = nil",
            "debug = {}; string = {}", "getmetatable(string).__index = {}",
            "local mt = getmetatable(''); mt.__index = {}",
        ]
        for attempt in attempts {
            let f = try vm.load("local ok, e = pcall(function() \(attempt) end) return ok, e", chunkName: "tamper.lua")
            let r = try vm.call(f)
            vm.release(f)
            // Each attempt either fails, or only changed the chunk's own environment.
            if r.first == true { #expect(attempt.hasPrefix("debug"), "\(attempt) succeeded") }
            let check = try run(
                vm,
                """
                return ('x'):rep(3), string.rep('y', 2), math.floor(1.5), permit.days(1), string.evil,
                  table.concat({1, 2}, ','), type(coroutine.wrap), utf8.char(65), getmetatable('')
                """)
            #expect(check == ["xxx", "yy", 1, 86400, .nil, "1,2", "function", "A", .nil], "after \(attempt)")
        }
        // pairs over a frozen library still works.
        let names = try run(vm, "local n = 0 for k in pairs(string) do if k == 'rep' then n = n + 1 end end return n, #string")
        #expect(names == [1, 0])
        expectHealthy(vm)
    }

    @Test func finalizersAreRefused() {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, "setmetatable({}, { __gc = function() while true do end end })")
        #expect(e?.kind == .runtime)
        #expect(e?.message.contains("__gc") == true)
        expectHealthy(vm)
    }

    @Test func mathRandomIsSeededPerVM() throws {
        let src = "local t = {} for i = 1, 5 do t[i] = math.random(1, 1000000) end return table.concat(t, ',')"
        let a = try run(LuaVM(randomSeed: 7), src)
        let b = try run(LuaVM(randomSeed: 7), src)
        let c = try run(LuaVM(randomSeed: 8), src)
        #expect(a == b)
        #expect(a != c)
        let vm = LuaVM(randomSeed: 7)
        #expect(failure(vm, "math.randomseed()")?.message.contains("explicit seed") == true)
        _ = try run(vm, "math.randomseed(7)")
    }

    @Test func printAndLogGoToACappedTrace() throws {
        let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 60_000, traceCapBytes: 1024))
        try run(vm, "print('a', 1, nil, true) permit.log('b', 2.5)")
        #expect(vm.drainTrace() == LuaTrace(text: "a\t1\tnil\ttrue\nb\t2.5\n", truncated: false, droppedBytes: 0))
        // A flood ends within the cap (and within the budget).
        do {
            let e = failure(vm, "while true do print(string.rep('x', 100)) end")
            #expect(e?.kind.stoppedForBudget == true)
        }
        let t = vm.drainTrace()
        #expect(t.truncated)
        #expect(t.text.utf8.count == 1024)
        #expect(t.droppedBytes > 0)
        try run(vm, "print('ok')")
        #expect(vm.drainTrace().text == "ok\n")
        // __tostring used by print runs under the budget.
        let e = failure(vm, "print(setmetatable({}, { __tostring = function() while true do end end }))")
        #expect(e?.kind.stoppedForBudget == true)
        expectHealthy(vm)
    }
}
