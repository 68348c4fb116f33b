import Foundation
import PermitCore
import Testing

@testable import PermitLua

/// Every function the sandbox exposes to a policy, driven with its worst input in a loop, ends
/// in a limit error within a few multiples of the time limit: the bound holds on every path by
/// design (the count hook, the call hook, input-size charges, the allocator), not for a list of
/// patched functions. The list below must name every exposed function: one exposed without a
/// worst case fails `everyExposedFunctionHasAWorstCase`. (The release red-team battery checks
/// the precise bound, limit + 10 %.)
@Suite struct LibraryBoundsTests {
    /// Long enough that a debug build on a loaded machine is not flaky, short enough that a
    /// path with no bound (hours) cannot pass.
    static let limits = LuaLimits(timeLimitMilliseconds: 100, memoryBytes: 32 << 20)
    /// A generous wall-clock allowance for a call limited to 100 ms: the typed error is what
    /// these tests assert; the precise bound (limit + 10 %) is the release red-team battery's.
    /// Under a sanitizer (`make sanitize` sets PERMIT_SANITIZER) C work runs 5-30 times slower
    /// than the charges' rates assume, so the allowance grows with it.
    static let allowedSeconds = ProcessInfo.processInfo.environment["PERMIT_SANITIZER"] == nil ? 2.0 : 30.0

    /// Strings every case may use: a megabyte of text, of digits, of a version, of spaces.
    static let prelude = """
        local S = ("x"):rep(1 << 20)
        local D = ("1"):rep(1 << 20)
        local V = ("1."):rep(1 << 19) .. "1"
        local B = (" "):rep(1 << 20)
        local function C() return table.concat(setmetatable({}, { __index = table.concat }), "", 1, 1 << 40) end
        """

    /// A loop calling `call` until a limit stops it.
    static func loop(_ call: String) -> String { "for i = 1, 1e12 do \(call) end" }

    /// Each exposed function's worst input, found by reading what its C code walks or calls.
    static let worstCases: [String: String] = [
        // base
        "assert": loop("assert(S, S)"),
        "error": loop("pcall(error, S)"),
        "ipairs": "for _, v in ipairs(setmetatable({}, { __index = function() return 1 end })) do end",
        "pcall": loop("pcall(C)"),
        "select": loop("select('#', table.unpack({}, 1, 200000))"),
        "tonumber": loop("tonumber(('z'):rep(1 << 20), 36)"),
        "tostring": loop("tostring(setmetatable({}, { __tostring = C }))"),
        "type": loop("type(S)"),
        "rawequal": loop("rawequal(S, S .. '')"),
        "rawlen": loop("rawlen(S)"),
        "next": loop("next({ S })"),
        "pairs": "for k in pairs(setmetatable({}, { __pairs = function() return C end })) do end",
        "rawget": loop("rawget({}, S)"),
        "rawset": loop("rawset({}, S, S)"),
        "load": loop("load('return ' .. (\"''or\"):rep(1500) .. \"''\")"),
        "print": loop("print(S, S, S)"),
        "getmetatable": loop("getmetatable(setmetatable({}, {}))"),
        "setmetatable": "local mt = {} for i = 1, 200000 do mt[i] = i end " + loop("setmetatable({}, mt)"),
        "xpcall": loop("xpcall(C, C)"),
        // string
        "string.byte": loop("S:byte(1, 500000)"),  // the longest slice fits the stack; a longer one is Lua's argument error
        "string.char": "local t = {} for i = 1, 100000 do t[i] = 65 end " + loop("string.char(table.unpack(t))"),
        "string.find": loop("S:find(('x'):rep(4000) .. 'y', 1, true)"),
        "string.format": loop("string.format('%q', S)"),
        "string.gmatch": loop("pcall(string.gmatch, S, '.-.-.-.-$')"),
        "string.gsub": loop("pcall(string.gsub, S, '.-.-.-.-$', '')"),
        "string.len": loop("S:len()"),
        "string.lower": loop("S:lower()"),
        "string.match": loop("pcall(string.match, S, '.-.-.-.-$')"),
        "string.pack": loop("string.pack(B)"),
        "string.packsize": loop("string.packsize(B)"),
        "string.rep": loop("S:rep(1)"),
        "string.reverse": loop("S:reverse()"),
        "string.sub": loop("S:sub(2)"),
        "string.unpack": loop("string.unpack(B .. B .. B, '')"),
        "string.upper": loop("S:upper()"),
        // table
        "table.concat": "C()",
        "table.insert": "local t = {} for i = 1, 100000 do t[i] = i end " + loop("table.insert(t, 1, 0) table.remove(t)"),
        "table.move": loop("table.move(setmetatable({}, { __index = rawequal, __newindex = rawequal }), 1, 100000, 2)"),
        "table.pack": loop("table.pack(table.unpack({}, 1, 200000))"),
        "table.remove": "local t = {} for i = 1, 100000 do t[i] = i end " + loop("table.remove(t, 1) t[#t + 1] = 0"),
        "table.sort": "local t = {} for i = 1, 20000 do t[i] = S end table.sort(t)",
        "table.unpack": loop("table.unpack(setmetatable({}, { __index = table.concat }), 1, 150000)"),
        // math (with the 5.2 functions the linked library keeps): a numeric string is converted
        // byte by byte wherever a number is expected
        "math.abs": loop("math.abs(D)"),
        "math.acos": loop("math.acos(D)"),
        "math.asin": loop("math.asin(D)"),
        "math.atan": loop("math.atan(D, D)"),
        "math.ceil": loop("math.ceil(D)"),
        "math.cos": loop("math.cos(D)"),
        "math.deg": loop("math.deg(D)"),
        "math.exp": loop("math.exp(D)"),
        "math.floor": loop("math.floor(D)"),
        "math.fmod": loop("math.fmod(D, D)"),
        "math.log": loop("math.log(D, D)"),
        "math.max": loop("math.max(D, D)"),
        "math.min": loop("math.min(D, D)"),
        "math.modf": loop("math.modf(D)"),
        "math.rad": loop("math.rad(D)"),
        "math.random": loop("math.random(1, 1 << 62)"),
        "math.randomseed": loop("pcall(math.randomseed, D)"),
        "math.sin": loop("math.sin(D)"),
        "math.sqrt": loop("math.sqrt(D)"),
        "math.tan": loop("math.tan(D)"),
        "math.tointeger": loop("math.tointeger(D)"),
        "math.type": loop("math.type(D)"),
        "math.atan2": loop("math.atan2(D, D)"),
        "math.cosh": loop("math.cosh(D)"),
        "math.frexp": loop("math.frexp(D)"),
        "math.ldexp": loop("math.ldexp(D, 1)"),
        "math.log10": loop("math.log10(D)"),
        "math.pow": loop("math.pow(D, D)"),
        "math.sinh": loop("math.sinh(D)"),
        "math.tanh": loop("math.tanh(D)"),
        "math.ult": loop("pcall(math.ult, D, D)"),
        // utf8
        "utf8.char": "local t = {} for i = 1, 100000 do t[i] = 0x10FFFF end " + loop("utf8.char(table.unpack(t))"),
        "utf8.codepoint": loop("utf8.codepoint(S, 1, 500000)"),
        "utf8.codes": "for _ in utf8.codes(S .. S) do end",
        "utf8.len": loop("utf8.len(S)"),
        "utf8.offset": loop("utf8.offset(S, -1)"),
        // coroutine
        "coroutine.close": loop("coroutine.close(coroutine.create(C))"),
        "coroutine.create": loop("coroutine.create(C)"),
        "coroutine.isyieldable": loop("coroutine.isyieldable()"),
        "coroutine.resume": loop("coroutine.resume(coroutine.create(C))"),
        "coroutine.running": loop("coroutine.running()"),
        "coroutine.status": loop("coroutine.status(coroutine.create(C))"),
        "coroutine.wrap": loop("pcall(coroutine.wrap(C))"),
        "coroutine.yield": loop("coroutine.wrap(function() coroutine.yield(C()) end)()"),
        // permit
        "permit.minutes": loop("permit.minutes(1e300)"),
        "permit.hours": loop("permit.hours(1 << 62)"),
        "permit.days": loop("permit.days(1 << 62)"),
        "permit.since": loop("permit.since(setmetatable({}, { __index = C }), 1)"),
        "permit.at_least": loop("permit.at_least({ platform = { version = V } }, V)"),
        "permit.version_at_least": loop("permit.version_at_least(V, V)"),
        // Without a copy every call is refused at once; with one, each copies at most 32 translations.
        "permit.copy": loop("pcall(permit.copy, S)"),
        "permit.within_hours": loop("pcall(permit.within_hours, setmetatable({}, { __index = C }), 1, 2)"),
        "permit.log": loop("permit.log(S, S)"),
        "permit.starts_with": loop("permit.starts_with(S, S)"),
        "permit.ends_with": loop("permit.ends_with(S, S)"),
        "permit.contains": loop("permit.contains(S, ('x'):rep(4000) .. 'y')"),
        "permit.split": loop("permit.split(S, 'x')"),
        "permit.trim": loop("permit.trim(B .. 'x' .. B)"),
    ]

    /// Every function reachable from a policy's globals: the base's functions and the functions
    /// of the library tables in it (their read-only proxies iterate as the real tables).
    static func exposedFunctions() throws -> Set<String> {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 10_000_000, timeLimitMilliseconds: 0))
        let base = try vm.sandboxBase()
        let list = try run(
            vm,
            """
            local base = ...
            local names = {}
            for k, v in pairs(base) do
              if type(v) == "function" then names[#names + 1] = k
              elseif type(v) == "table" then
                for k2, v2 in pairs(v) do
                  if type(v2) == "function" then names[#names + 1] = k .. "." .. k2 end
                end
              end
            end
            return table.concat(names, " ")
            """, [.ref(base)])
        guard case .string(let text) = list.first else { return [] }
        return Set(text.split(separator: " ").map(String.init))
    }

    @Test func everyExposedFunctionHasAWorstCase() throws {
        let exposed = try Self.exposedFunctions()
        #expect(exposed.count > 80, "the enumeration found \(exposed.count) functions")
        let missing = exposed.subtracting(Self.worstCases.keys).sorted()
        #expect(missing.isEmpty, "exposed without a worst case here: \(missing)")
        let stale = Set(Self.worstCases.keys).subtracting(exposed).sorted()
        #expect(stale.isEmpty, "worst cases of functions the sandbox does not expose: \(stale)")
    }

    @Test(arguments: worstCases.keys.sorted())
    func worstInputEndsInALimitError(name: String) {
        let vm = LuaVM(limits: Self.limits)
        let start = Date()
        let e = failure(vm, Self.prelude + "\n" + Self.worstCases[name]!)
        let seconds = Date().timeIntervalSince(start)
        let kinds: Set<LuaError.Kind> = [.instructionBudgetExceeded, .timeLimitExceeded, .memoryExhausted, .stringTooLarge]
        #expect(e.map { kinds.contains($0.kind) } == true, "\(name): \(String(describing: e))")
        #expect(seconds < Self.allowedSeconds, "\(name) ran \(seconds) s")
        expectHealthy(vm)
    }

    /// Input-size charges: each call that walks a string is charged by its length before it
    /// runs, so with a small budget and no clock one long input is refused, naming the function
    /// (uncharged, each of these is a single call that finishes well within the budget).
    @Test(arguments: [
        ("tonumber", "return tonumber(('z'):rep(60000), 36)"),
        ("string.pack", "return #string.pack((' '):rep(30000))"),
        ("string.packsize", "return string.packsize((' '):rep(30000))"),
        ("string.unpack", "return string.unpack((' '):rep(30000), '')"),
        ("string.upper", "return #(('x'):rep(120000)):upper()"),
        ("string.lower", "return #(('x'):rep(120000)):lower()"),
        ("string.reverse", "return #(('x'):rep(120000)):reverse()"),
        ("string.format", "return #string.format('%q', ('x'):rep(40000))"),
        ("permit.at_least", "return permit.at_least({ platform = { version = '1' } }, ('1.'):rep(60000) .. '1')"),
        ("permit.version_at_least", "return permit.version_at_least(('1.'):rep(60000) .. '1', '1')"),
    ])
    func longInputsAreChargedBeforeTheyRun(name: String, source: String) {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 0))
        let e = failure(vm, source)
        #expect(e?.kind == .instructionBudgetExceeded, "\(name): \(String(describing: e))")
        #expect(e?.message.contains(name) == true, "\(name): \(String(describing: e))")
        expectHealthy(vm)
    }

    /// The call hook: table.concat calling a C `__index` runs no instruction and allocates
    /// nothing, yet ends within the limit (it ran for hours before every call was an event).
    @Test func aCLoopCallingBackIsStopped() {
        let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 100))
        let start = Date()
        let e = failure(vm, "return table.concat(setmetatable({}, { __index = table.concat }), '', 1, 1 << 40)")
        #expect(e?.kind.stoppedForBudget == true, "\(String(describing: e))")
        #expect(Date().timeIntervalSince(start) < Self.allowedSeconds)
        expectHealthy(vm)
    }

    /// The same loop in a policy's main chunk: loading runs under the call's limits, and the
    /// policy does not load.
    @Test func aMainChunkLoopDoesNotLoad() {
        let source = """
            table.concat(setmetatable({}, { __index = table.concat }), "", 1, 1 << 40)
            return { name = "x", decide = function() return { action = "none" } end }
            """
        let start = Date()
        #expect(throws: PolicyError.self) {
            _ = try LuaPolicy(source: source, chunkName: "slow.lua", limits: LuaLimits(timeLimitMilliseconds: 100))
        }
        #expect(Date().timeIntervalSince(start) < Self.allowedSeconds)
    }

    /// A policy file past the cap is refused before it is compiled, naming the file and the cap.
    @Test func anOversizedPolicyIsRefusedUpFront() {
        let source = "local a = ... return " + String(repeating: "a and ", count: 60_000) + "a\n"
        let start = Date()
        do {
            _ = try LuaPolicy(source: source, chunkName: "big.lua")
            Issue.record("a 360 KB policy loaded")
        } catch {
            #expect(error.kind == .load, "\(error)")
            #expect(error.file == "big.lua")
            #expect(error.message.contains("12288 bytes"), "\(error.message)")
            #expect(error.message.contains("LuaLimits.maxSourceBytes"), "\(error.message)")
        }
        #expect(Date().timeIntervalSince(start) < 0.5)
    }

    /// `load` in a policy: text past the cap fails as a compile error does; text under it is
    /// charged for its worst compile, so a large one is refused by the budget before compiling.
    @Test func loadIsCappedAndChargedForItsWorstCompile() throws {
        let vm = LuaVM()
        let r = try run(vm, "local f, err = load(('x = 1 '):rep(2100)) return f == nil, err")
        #expect(r.first == .boolean(true))
        #expect(r.last?.stringValue?.contains("LuaLimits.maxSourceBytes") == true, "\(r)")
        let e = failure(vm, "return load(('x = 1 '):rep(2000))")
        #expect(e?.kind == .instructionBudgetExceeded, "\(String(describing: e))")
        #expect(e?.message.contains("load") == true, "\(String(describing: e))")
        // A small chunk still loads and runs.
        #expect(try run(vm, "return load('return 40 + 2')()") == [.integer(42)])
    }
}
