import Testing

@testable import PermitLua

@Suite struct BridgeTests {
    @Test func valuesRoundTrip() throws {
        let vm = LuaVM(limits: testLimits)
        let arg: LuaValue = .table(
            LuaTable([
                "name": "open", "n": 3, "x": 1.5, "yes": true,
                "list": .table(LuaTable(array: ["a", "b"])),
            ]))
        let r = try run(
            vm,
            """
            local t = ...
            return t.name, t.n, math.type(t.n), t.x, t.yes, #t.list, t.list[2], t, 'é\\0z'
            """, [arg])
        #expect(Array(r[0..<7]) == ["open", 3, "integer", 1.5, true, 2, "b"])
        #expect(r[7] == arg)
        #expect(r[8] == .string("é\u{0}z"))
    }

    @Test func readingTablesRunsNoLuaCode() throws {
        let vm = LuaVM(limits: fastLimits)
        let r = try run(
            vm,
            """
            local loop = function() while true do end end
            local t = setmetatable({ 1, 2, a = 'x' }, { __index = loop, __pairs = loop, __len = loop, __newindex = loop })
            return t
            """)
        let t = try #require(r.first?.tableValue)
        #expect(t.hasMetatable)
        #expect(t.entries.map(\.key) == [1, 2, "a"])
        #expect(vm.instructionsUsedByLastCall < 10_000)
    }

    @Test func cyclesDepthAndSharing() throws {
        let vm = LuaVM(limits: testLimits)
        let cyc = failure(vm, "local t = {} t.self = t return t")
        #expect(cyc?.kind == .unsupportedValue)
        #expect(cyc?.message == "cyclic table")
        let deep = failure(vm, "local t = {} for i = 1, 100 do t = { t } end return t")
        #expect(deep?.kind == .unsupportedValue)
        // A DAG that would expand to 2^40 values is refused, not expanded.
        let dag = failure(vm, "local t = {} for i = 1, 40 do t = { t, t } end return t")
        #expect(dag?.kind == .unsupportedValue)
        // Shared (non-cyclic) subtables are fine.
        let shared = try run(vm, "local s = { 1 } return { s, s }")
        #expect(shared == [.table(LuaTable(array: [.table(LuaTable(array: [1])), .table(LuaTable(array: [1]))]))])
        expectHealthy(vm)
    }

    @Test func entryOrderIsDeterministic() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(vm, "return { 'a', 'b', z = 1, y = 2, [10] = 3, [-1] = 4, [true] = 5, [1.5] = 6 }")
        let keys = r[0].tableValue?.entries.map(\.key)
        #expect(keys == [1, 2, -1, 1.5, 10, "y", "z", true])
    }

    @Test func functionsAreKeptOnlyOnRequest() throws {
        let vm = LuaVM(limits: testLimits)
        let chunk = try vm.load("return { decide = function(ctx) return ctx.n * 2 end, name = 'p' }", chunkName: "p.lua")
        #expect(try vm.call(chunk) == [.table(LuaTable(["decide": .other("function"), "name": "p"]))])
        let policy = try vm.call(chunk, keepFunctions: true)
        let decide = try #require(policy[0].tableValue?["decide"]?.refValue)
        #expect(try vm.call(decide, [.table(LuaTable(["n": 21]))]) == [42])
        vm.releaseRefs(in: policy[0])
        do {
            _ = try vm.call(decide)
            Issue.record("released ref still callable")
        } catch {
            #expect(error.kind == .invalidUse)
        }
        let other = LuaVM(limits: testLimits)
        do {
            _ = try other.call(chunk)
            Issue.record("foreign ref accepted")
        } catch {
            #expect(error.kind == .invalidUse)
        }
    }

    @Test func storedReadOnlyTablesCannotBeChangedByScripts() throws {
        let vm = LuaVM(limits: testLimits)
        let platform = try vm.store(.table(LuaTable(["version": "17.2", "nested": .table(LuaTable(["a": 1]))])))
        let f = try vm.load(
            """
            local p = ...
            local ok1 = pcall(function() p.version = '1.0' end)
            local ok2 = pcall(function() p.nested.a = 2 end)
            local ok3 = pcall(rawset, p, 'version', '1.0')
            local n = 0 for k in pairs(p) do n = n + 1 end
            return p.version, p.nested.a, ok1, ok2, ok3, n
            """, chunkName: "ro.lua")
        for _ in 0..<2 { #expect(try vm.call(f, [.ref(platform)]) == ["17.2", 1, false, false, false, 2]) }
    }

    @Test func hostFunctionsUseATrampoline() throws {
        let vm = LuaVM(limits: testLimits)
        struct Refused: Error, CustomStringConvertible { var description: String { "refused by host" } }
        let add = try vm.makeHostFunction { args in
            guard let a = args.first?.integerValue, let b = args.dropFirst().first?.integerValue else { throw Refused() }
            return [.integer(a + b), .table(LuaTable(array: ["x"]))]
        }
        let f = try vm.load(
            """
            local add = ...
            local s, t = add(2, 3)
            local ok, err = pcall(function() return add('no') end)
            local co = coroutine.wrap(function() return add(10, 20) end)
            return s, t[1], ok, err, (co())
            """, chunkName: "host.lua")
        let r = try vm.call(f, [.ref(add)])
        #expect(r == [5, "x", false, "host.lua:3: refused by host", 30])
        // An uncaught host error becomes a typed runtime error with a position.
        let g = try vm.load("local add = ...\nreturn add()", chunkName: "h2.lua")
        do {
            _ = try vm.call(g, [.ref(add)])
            Issue.record("no error")
        } catch {
            #expect(error.kind == .runtime)
            #expect(error.message == "h2.lua:2: refused by host")
        }
        // Calling back into the VM from a host function is refused, not re-entered.
        let reenter = try vm.makeHostFunction { _ in try vm.call(g, [.ref(add)]) }
        let h = try vm.load("local r = ...\nreturn r()", chunkName: "h3.lua")
        do {
            _ = try vm.call(h, [.ref(reenter)])
            Issue.record("re-entered")
        } catch {
            #expect(error.message.contains("re-entrant"))
        }
        expectHealthy(vm)
    }

    @Test func releaseDuringACallIsDeferred() throws {
        let vm = LuaVM(limits: testLimits)
        let f = try vm.load("return 1", chunkName: "one.lua")
        let releaser = try vm.makeHostFunction { _ in
            vm.release(f)
            return []
        }
        let g = try vm.load("local r = ... r() return 2", chunkName: "g.lua")
        #expect(try vm.call(g, [.ref(releaser)]) == [2])
        #expect(throws: LuaError.self) { try vm.call(f) }
        #expect(vm.liveReferenceCount == 2)
        expectHealthy(vm)
    }

    @Test func functionsReadInsideCoroutinesAreUsable() throws {
        let vm = LuaVM(limits: testLimits)
        var kept: [LuaValue] = []
        let keep = try vm.makeHostFunction { args in
            kept = args
            return [.integer(Int64(args.count))]
        }
        let f = try vm.load(
            """
            local keep = ...
            return coroutine.wrap(function() return keep({ a = 1 }, 'x'), (coroutine.running()) end)()
            """, chunkName: "co.lua")
        let r = try vm.call(f, [.ref(keep)])
        #expect(r.first == 2)
        #expect(r.last == .other("thread"))
        #expect(kept == [.table(LuaTable(["a": 1])), "x"])
        let g = try vm.load("return coroutine.wrap(function() return function() return 'inner' end end)()", chunkName: "co2.lua")
        let inner = try #require(try vm.call(g, keepFunctions: true).first?.refValue)
        #expect(try vm.call(inner) == ["inner"])
        expectHealthy(vm)
    }

    @Test func permitHelpers() throws {
        let vm = LuaVM(limits: testLimits)
        let ctx: LuaValue = .table(LuaTable(["now": 1_000_000, "platform": .table(LuaTable(["version": "15.4"]))]))
        let r = try run(
            vm,
            """
            local ctx = ...
            return permit.minutes(2), permit.hours(1), permit.days(3), permit.days(0.5),
              permit.since(ctx, 999000), permit.since(ctx, nil) == math.huge,
              permit.at_least(ctx, '15.4'), permit.at_least(ctx, '15.4.0'), permit.at_least(ctx, '15'),
              permit.at_least(ctx, '15.5'), permit.at_least(ctx, '16.0'), permit.at_least(ctx, '9.3'),
              permit.at_least(ctx, '15.10')
            """, [ctx])
        #expect(r == [120, 3600, 259200, 43200.0, 1000, true, true, true, true, false, false, true, false])
        let old: LuaValue = .table(LuaTable(["platform": .table(LuaTable(["version": "9.3"]))]))
        #expect(try run(vm, "return permit.at_least(..., '12.0'), permit.at_least(..., '9.3')", [old]) == [false, true])
        let odd: LuaValue = .table(LuaTable(["platform": .table(LuaTable(["version": "17.0.1 (21A)"]))]))
        #expect(try run(vm, "return permit.at_least(..., '17'), permit.at_least(..., '17.0.2')", [odd]) == [true, false])
        #expect(failure(vm, "return permit.at_least({ platform = { version = '1' } }, 'x.y')")?.message.contains("version like") == true)
        #expect(failure(vm, "return permit.at_least({}, '1.0')")?.message.contains("ctx.platform") == true)
        #expect(failure(vm, "return permit.since({}, 5)")?.message.contains("ctx.now") == true)
        try run(vm, "permit.log('decided', 1)")
        #expect(vm.drainTrace().text == "decided\t1\n")
    }
}
