import Foundation
import Testing

@testable import PermitLua

/// Library calls that do their work inside one C call are charged before they run, so a single
/// call cannot run far past the budget. (Timing lives in `make redteam`, not here.)
@Suite struct ChargedLibTests {
    /// A small budget and no wall clock: the charge alone decides.
    static let small = LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 0)

    @Test(arguments: [
        ("string.byte", "local s = string.rep('x', 50000) return #{ s:byte(1, -1) }"),
        ("table.unpack", "return select('#', table.unpack({}, 1, 30000))"),
        ("table.pack", "return table.pack(table.unpack({}, 1, 7000)).n"),
        ("utf8.len", "return utf8.len(string.rep('x', 50000))"),
        ("utf8.codepoint", "return select('#', utf8.codepoint(string.rep('x', 20000), 1, -1))"),
        ("utf8.char", "local t = {} for i = 1, 7000 do t[i] = 65 end return #utf8.char(table.unpack(t))"),
    ])
    func oneBigCallIsChargedBeforeItRuns(name: String, source: String) {
        let vm = LuaVM(limits: Self.small)
        let e = failure(vm, source)
        #expect(e?.kind == .instructionBudgetExceeded, "\(name): \(String(describing: e))")
        #expect(e?.message.contains(name) == true, "\(name): \(String(describing: e))")
        expectHealthy(vm)
    }

    @Test func sortingLongStringsIsChargedByLength() {
        // 2,000 copies of a 1 MiB string: each comparison scans a megabyte in C.
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 2_000_000, timeLimitMilliseconds: 0))
        let e = failure(vm, "local s = string.rep('x', 1 << 20) local t = {} for i = 1, 2000 do t[i] = s end table.sort(t)")
        // Raised by the charge (naming table.sort) or by the next hook event, whichever comes first.
        #expect(e?.kind == .instructionBudgetExceeded, "\(String(describing: e))")
        #expect(e?.message.contains("instruction budget") == true)
        let e2 = failure(
            vm,
            """
            local s = string.rep('x', 1 << 20) local t = {} for i = 1, 2000 do t[i] = s end
            table.sort(t, function(a, b) return a < b end)
            """)
        #expect(e2?.kind == .instructionBudgetExceeded, "\(String(describing: e2))")
        expectHealthy(vm)
    }

    @Test func sortStillSorts() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            """
            local a = { 5, 3, 9, 1 } table.sort(a)
            local b = { "pear", "apple", "fig" } table.sort(b)
            local c = { 1, 2, 3 } table.sort(c, function(x, y) return x > y end)
            return table.concat(a, ","), table.concat(b, ","), table.concat(c, ",")
            """)
        #expect(r == [.string("1,3,5,9"), .string("apple,fig,pear"), .string("3,2,1")])
        #expect(failure(vm, "table.sort({ 1, 'x' })")?.kind == .runtime)
    }

    @Test func weakTablesAreRefused() {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, "return setmetatable({}, { __mode = 'k' })")
        #expect(e?.kind == .runtime)
        #expect(e?.message.contains("weak tables (__mode) are not available") == true, "\(String(describing: e))")
        expectHealthy(vm)
    }

    @Test func metatablesStillBehave() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            """
            local Point = {} Point.__index = Point
            function Point.new(x, y) return setmetatable({ x = x, y = y }, Point) end
            Point.__add = function(a, b) return Point.new(a.x + b.x, a.y + b.y) end
            function Point:sum() return self.x + self.y end
            local p = Point.new(1, 2) + Point.new(3, 4)
            return p:sum(), rawequal(getmetatable(p), Point), getmetatable(setmetatable({}, nil)) == nil
            """)
        #expect(r == [.integer(10), .boolean(true), .boolean(true)])
    }

    @Test func tostringShowsNoHostAddress() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            """
            local t, u = {}, {}
            print(t, print)
            return tostring(t), tostring(t) == tostring(t), tostring(t) ~= tostring(u), tostring(print),
              string.format("%s", u), tostring(setmetatable({}, { __tostring = function() return "custom" end }))
            """)
        guard case .string(let t)? = r.first, case .string(let f)? = r[safe: 3], case .string(let formatted)? = r[safe: 4] else {
            Issue.record("unexpected \(r)")
            return
        }
        #expect(t.range(of: #"^table: #\d+$"#, options: .regularExpression) != nil, "\(t)")
        #expect(f.range(of: #"^function: #\d+$"#, options: .regularExpression) != nil, "\(f)")
        #expect(formatted.range(of: #"^table: #\d+$"#, options: .regularExpression) != nil, "\(formatted)")
        #expect(r[1] == .boolean(true) && r[2] == .boolean(true))
        #expect(r[5] == .string("custom"))
        let printed = vm.drainTrace().text
        #expect(!printed.contains("0x"), "\(printed)")
        #expect(printed.hasPrefix("{}\tfunction: #"), "print shows a table's contents (TraceTableTests), a function's number")
        let p = failure(vm, "return string.format('%p', {})")
        #expect(p?.message.contains("'%p' is not available") == true, "\(String(describing: p))")
    }

    @Test func aTablePastTheSlotCapIsAMemoryError() throws {
        let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 0, maxTableSlots: 1 << 12))
        let e = failure(vm, "local t = {} for i = 1, 10000 do t['k' .. i] = i end")
        #expect(e?.kind == .memoryExhausted, "\(String(describing: e))")
        #expect(e?.message.contains("4096 hash slots") == true, "\(String(describing: e))")
        // The array part is not capped.
        #expect(try run(vm, "local t = {} for i = 1, 50000 do t[i] = i end return #t") == [.integer(50000)])
        expectHealthy(vm)
    }
}

/// Below the cap, a table grows only while the worst case of the rehash that follows (all keys
/// in one chain, slots^2 * 7 ns) still fits the time limit.
@Test func aTableGrowsOnlyWhileItsWorstRehashFitsTheTimeLimit() throws {
    let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 50, maxTableSlots: 1 << 14))
    let e = failure(vm, "local t = {} for i = 1, 5000 do t['k' .. i] = i end")
    #expect(e?.kind == .timeLimitExceeded, "\(String(describing: e))")
    // Ordinary tables are untouched: 400 keys need 2^9 slots, whose worst rehash (about 2 ms)
    // leaves the call most of its 50 ms even on a loaded machine. (2^11 slots, about 30 ms,
    // also fit on an idle one, but whether they do depends on the time already spent.)
    #expect(try run(vm, "local t = {} for i = 1, 400 do t['k' .. i] = i end return #t + 1") == [.integer(1)])
    expectHealthy(vm)
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
