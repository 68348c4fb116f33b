import Foundation
import PermitCore
import Testing

@testable import PermitLua

/// Loops Lua runs inside one VM step, which no hook sees: the `__call` lookup, `__index` and
/// `__newindex` chains (also read by C loops: `table.move`, `unpack`, `concat`), and single
/// instructions made costly by long strings or colliding keys. Each ends in a typed error (or
/// resolves at once) within a generous time; the precise bound (limit + 10 %) is the release
/// red-team battery's (`make redteam`, classes `__call chain`, `__index chain`, `costly
/// instruction`). Without the sandbox's design each took seconds.
@Suite struct InstructionLoopTests {
    static let limits = LuaLimits(timeLimitMilliseconds: 100)
    static let allowedSeconds = LibraryBoundsTests.allowedSeconds

    /// Runs `source` on a fresh VM; returns its error (nil when it returned) and the seconds.
    static func timed(_ source: String, _ args: [LuaValue] = [], limits: LuaLimits = limits) -> (LuaError?, Double, LuaVM) {
        let vm = LuaVM(limits: limits)
        let start = Date()
        var error: LuaError?
        do { _ = try run(vm, source, args) } catch let e { error = e }
        return (error, Date().timeIntervalSince(start), vm)
    }

    /// A `__call` that is not a function is refused where it is stored: on a metatable in use
    /// (a new key), in setmetatable, through rawset and as a global of a chunk loaded with the
    /// metatable as its environment. Lua would look it up again and again (17 s for one call).
    @Test(arguments: [
        "local t = setmetatable({}, {}) getmetatable(t).__call = t pcall(t)",
        "local t = {} setmetatable(t, { __call = t })",
        "local mt = {} local t = setmetatable({}, mt) rawset(mt, '__call', t)",
        "local mt = {} local t = setmetatable({}, mt) load('__call = ...', 'x', 't', mt)(t)",
        "local C = {} setmetatable(C, C) C.__call = C",
    ])
    func aCallThatIsNotAFunctionIsRefused(source: String) {
        let (e, seconds, vm) = Self.timed(source)
        #expect(e?.message.contains("__call metamethod must be a function") == true, "\(String(describing: e))")
        #expect(seconds < Self.allowedSeconds, "ran \(seconds) s")
        expectHealthy(vm)
    }

    /// The bypass of a check made only when a key is new: the metatable had a function
    /// `__call` when setmetatable ran, and a store to that existing key (raw, seen by no
    /// `__newindex`) replaces it by the table itself. Lua reads the stand-in setmetatable
    /// installed, which still holds the function, so every call resolves in one round.
    @Test(arguments: [
        "local mt = { __call = function() return 'f' end } local t = setmetatable({}, mt) mt.__call = t "
            + "return select(2, pcall(t))",
        "local mt = { __call = function() return 'f' end } local t = setmetatable({}, mt) mt.__call = t "
            + "local v = setmetatable({}, { __lt = t }) return tostring(select(2, pcall(function() return v < v end)))",
        "local mt = { __call = function() return 'f' end } local t = setmetatable({}, mt) mt.__call = t "
            + "local ok, e = pcall(function() local x <close> = setmetatable({}, { __close = t }) end) return tostring(ok)",
    ])
    func aCallReplacedInPlaceResolvesAtOnce(source: String) throws {
        let (e, seconds, _) = Self.timed(source)
        #expect(e == nil, "\(String(describing: e))")
        #expect(seconds < Self.allowedSeconds, "ran \(seconds) s")
    }

    /// A policy whose main chunk builds the loop and catches the error does not load.
    @Test func aMainChunkCallLoopDoesNotLoad() {
        let source = """
            local t = setmetatable({}, {})
            getmetatable(t).__call = t
            pcall(t)
            return { name = "x", decide = function() return { action = "none" } end }
            """
        let start = Date()
        #expect(throws: PolicyError.self) {
            _ = try LuaPolicy(source: source, chunkName: "loop.lua", limits: Self.limits)
        }
        #expect(Date().timeIntervalSince(start) < Self.allowedSeconds)
    }

    /// A chain of 2,000 tables read by C loops (each read walked the chain inside one C call,
    /// charged one unit an element: 8-9.5 s) and by plain instructions (a cycle of two tables
    /// of colliding keys: 0.5 ms a read, 1,000 reads between two clock readings).
    @Test(arguments: [
        "table.move(first, 1, 100000, 1, {})",
        "table.unpack(first, 1, 5000)",
        "table.concat(first, '', 1, 100000)",
        "table.sort(first)",
        "table.insert(first, 1, 0)",
        "local n = 0 for _, v in ipairs(first) do n = n + 1 end",
        "local _ = first[12345]",
        "first.x = 1",
    ])
    func chainsAreWalkedWithinTheLimit(loop: String) {
        let source = """
            local first = {}
            local t = first
            for i = 1, 1999 do local n = {} setmetatable(t, { __index = n, __newindex = n }) t = n end
            for i = 1, 100000 do t[i] = "x" end
            for i = 1, 1e9 do \(loop) end
            """
        let (e, seconds, vm) = Self.timed(source)
        #expect(e?.kind.stoppedForBudget == true, "\(String(describing: e))")
        #expect(seconds < Self.allowedSeconds, "ran \(seconds) s")
        expectHealthy(vm)
    }

    /// Two tables of 2,048 keys that share one main position, each the other's `__index`: one
    /// read walks 2,000 collision chains of 2,048 nodes (150 ms) if Lua walks it in one
    /// instruction; the walker reads the clock at every table.
    @Test func readsThroughACycleOfCollidingTablesAreStopped() {
        let source = """
            local function colliding()
              local t = {}
              for i = 1, 2048 do t[i * 2047 + 7 + (1 << 40)] = true end
              return t
            end
            local a, b = colliding(), colliding()
            setmetatable(a, { __index = b })
            setmetatable(b, { __index = a })
            local k = 7 + (1 << 40) + 2047 * 4000
            for i = 1, 1e9 do pcall(function() return a[k] end) end
            """
        let (e, seconds, vm) = Self.timed(source, limits: LuaLimits(timeLimitMilliseconds: 500))
        #expect(e?.kind.stoppedForBudget == true, "\(String(describing: e))")
        #expect(seconds < Self.allowedSeconds, "ran \(seconds) s")
        expectHealthy(vm)
    }

    /// `<` on strings of NUL bytes costs a strcoll per byte (3 ms for 60 KB): the step shrinks
    /// with the longest string, whether the script built it or the host passed it.
    @Test func comparingLongStringsOfNulBytesIsStopped() {
        // Strings under 64 KiB: 1,000 instructions hold 300 comparisons of 3 ms, about a second
        // past a 20 ms limit if they all ran between two clock readings.
        let source = """
            local a, b = ("\\0"):rep(64000) .. "a", ("\\0"):rep(64000) .. "b"
            for i = 1, 1e9 do local _ = a < b end
            """
        let (e, seconds, vm) = Self.timed(source, limits: LuaLimits(timeLimitMilliseconds: 20))
        #expect(e?.kind.stoppedForBudget == true, "\(String(describing: e))")
        #expect(seconds < Self.allowedSeconds / 4, "ran \(seconds) s")
        expectHealthy(vm)
    }

    @Test func aLongStringTheHostPassedCounts() {
        let long = String(repeating: "\u{0}", count: 200_000)
        let (e, seconds, vm) = Self.timed("local a = ... for i = 1, 1e9 do local _ = a < a end", [.string(long)])
        #expect(e?.kind.stoppedForBudget == true, "\(String(describing: e))")
        #expect(seconds < Self.allowedSeconds, "ran \(seconds) s")
        expectHealthy(vm)
    }

    /// A long string a call left behind does not cut the next call short once it is garbage:
    /// a call that starts with a large reserve collects first. (The host's megabyte argument
    /// cannot be compared within the app's 50 ms, so that call stops; the next ones run. The
    /// limit is given, as a sanitizer build's default would let the compares finish.)
    @Test func aDroppedLongStringNoLongerCounts() {
        let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 50))
        let long = String(repeating: "x", count: 1 << 20)
        var e: LuaError?
        do { _ = try run(vm, "local s = ... for i = 1, 100 do local _ = s < s end", [.string(long)]) } catch let error { e = error }
        #expect(e?.kind == .timeLimitExceeded, "\(String(describing: e))")
        for _ in 0..<3 { expectHealthy(vm) }
    }
}
