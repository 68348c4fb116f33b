import Testing

@testable import PermitLua

/// Policies get no Lua patterns: `string.find` searches plain text, `match`, `gmatch`, `gsub`
/// and a pattern `find` are refused with advice, and `permit` offers the text helpers real
/// policies need instead.
@Suite struct TextTests {
    @Test(arguments: [
        ("string.match", "return string.match('abc', 'b')"),
        ("string.match", "return ('abc'):match('b')"),
        ("string.gmatch", "for w in ('a b'):gmatch('%a+') do end"),
        ("string.gsub", "return string.gsub('abc', 'b', 'x')"),
        ("string.gsub", "return ('abc'):gsub('b', 'x')"),
        ("string.find with a pattern", "return ('abc'):find('%a+')"),
        ("string.find with a pattern", "return string.find('abc', 'a.c')"),
        ("string.find with a pattern", "return ('aaa'):find(string.rep('a?', 30) .. string.rep('a', 30) .. 'b')"),
    ])
    func patternsAreRefusedWithAdvice(name: String, source: String) {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, source, chunk: "policy.lua")
        #expect(e?.kind == .runtime, "\(String(describing: e))")
        #expect(
            e?.message.hasPrefix("policy.lua:1: \(name) is not available in Permit policies") == true,
            "\(String(describing: e?.message))")
        #expect(e?.message.contains("Lua patterns are disabled in the sandbox") == true)
        #expect(e?.message.contains("permit.split") == true)
        #expect(e?.message.contains("string.find(s, text, 1, true)") == true)
        expectHealthy(vm)
    }

    @Test func plainFindFollowsTheManual() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            #"""
            local out = {}
            local function add(...) for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end end
            add(("hello world"):find("o w"))        -- no special characters: a plain search
            add(("a.b"):find(".", 1, true))         -- plain = true: '.' is just a dot
            add(("a+b"):find("+", 1, true))
            add(("a%b"):find("%", 1, true))
            add(("hello"):find("l", -2))            -- negative init counts from the end
            add(("hello"):find("l", -100))          -- before the start: the start
            add(("hello"):find("h", 0))
            add(("abc"):find("b", 10))              -- past the end: nothing
            add(("abc"):find("", 2))                -- "" is found where the search starts
            add(("abc"):find("", 4))
            add(("abc"):find("", 5))
            add(("abcabc"):find("bc", 3))
            add(("a\0b"):find("\0b"))
            add(string.find("abc", "abcd"))
            add(("x"):rep(3, ","), (""):rep(1 << 60), ("ab"):rep(0), ("ab"):rep(-1), (""):rep(3, "-"))
            return table.concat(out, "|")
            """#)
        #expect(r.first?.stringValue == "5|7|2|2|2|2|2|2|4|4|3|3|1|1|nil|2|1|4|3|nil|5|6|2|3|nil|x,x,x||||--")
    }

    @Test func startsAndEndsWith() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            #"""
            return permit.starts_with("hello", "he"), permit.starts_with("hello", ""), permit.starts_with("", ""),
                permit.starts_with("he", "hello"), permit.starts_with("hello", "lo"), permit.starts_with("a\0b", "a\0"),
                permit.ends_with("hello", "lo"), permit.ends_with("hello", ""), permit.ends_with("lo", "hello"),
                permit.ends_with("hello", "he"), permit.starts_with("a.b", "."), permit.ends_with("x%", "%")
            """#)
        #expect(r == [true, true, true, false, false, true, true, true, false, false, false, true].map { .boolean($0) })
    }

    @Test func contains() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            #"""
            return permit.contains("hello", "ll"), permit.contains("hello", ""), permit.contains("", "a"),
                permit.contains("a.b", "."), permit.contains("abc", "abcd"), permit.contains("abc", "a.c")
            """#)
        #expect(r == [true, true, false, true, false, false].map { .boolean($0) })
    }

    @Test func split() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            #"""
            local out = {}
            for _, case in ipairs({ {"a,b,c", ","}, {"a,,b", ","}, {"", ","}, {"a,", ","}, {",a", ","},
                                    {"a::b::c", "::"}, {"abc", "x"}, {"aaa", "aa"}, {"1.2.3", "."}, {",", ","} }) do
                out[#out + 1] = "[" .. table.concat(permit.split(case[1], case[2]), "/") .. "]" .. #permit.split(case[1], case[2])
            end
            return table.concat(out, " ")
            """#)
        #expect(r.first?.stringValue == "[a/b/c]3 [a//b]3 []1 [a/]2 [/a]2 [a/b/c]3 [abc]1 [/a]2 [1/2/3]3 [/]2")
    }

    @Test func trim() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            #"""
            return permit.trim("  a b \t\n"), permit.trim(""), permit.trim(" \r\n\t\v\f "), permit.trim("x"),
                permit.trim("\0 x"), permit.trim(" é ")
            """#)
        #expect(r == [.string("a b"), .string(""), .string(""), .string("x"), .string("\0 x"), .string("é")])
    }

    @Test(arguments: [
        ("return permit.split('a,b', '')", "bad argument #2 to 'split' (the separator must not be empty)"),
        ("return permit.split(nil, ',')", "bad argument #1 to 'split' (string expected, got nil)"),
        ("return permit.trim(12)", "bad argument #1 to 'trim' (string expected, got number)"),
        ("return permit.contains('a')", "bad argument #2 to 'contains' (string expected, got no value)"),
        ("return permit.starts_with({}, 'a')", "bad argument #1 to 'starts_with' (string expected, got table)"),
        ("return permit.ends_with('a', true)", "bad argument #2 to 'ends_with' (string expected, got boolean)"),
    ])
    func helpersRefuseWhatIsNotText(source: String, message: String) {
        let vm = LuaVM(limits: testLimits)
        let e = failure(vm, source, chunk: "policy.lua")
        #expect(e?.kind == .runtime)
        #expect(e?.message == "policy.lua:1: \(message)", "\(String(describing: e?.message))")
    }

    /// Each helper reads its input in one C call, so the budget is charged by size before the
    /// work: at least one unit per 64 bytes (and per piece, for split).
    @Test(arguments: [
        ("permit.contains(s, 'b')", 1 << 20),
        ("permit.trim(s)", 1 << 20),
        ("permit.starts_with(s, s)", 1 << 20),
        ("permit.ends_with(s, s)", 1 << 20),
        ("permit.split(s, 'b')", 1 << 20),
    ])
    func helpersAreChargedBySize(call: String, bytes: Int) throws {
        let vm = LuaVM(
            limits: LuaLimits(
                instructionsPerCall: 20_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 32 << 20, maxStringBytes: 4 << 20))
        // 1 MiB: big enough that its 16,384 units stand far above a short string's few.
        let big = LuaValue.string(String(repeating: "a", count: bytes))
        try run(vm, "local s = ... local _ = \(call)", [big])
        #expect(vm.instructionsUsedByLastCall >= bytes / 64, "\(call): \(vm.instructionsUsedByLastCall)")
        try run(vm, "local s = 'abc' local _ = \(call)")
        #expect(vm.instructionsUsedByLastCall < 100, "\(call) on a short string")
    }

    @Test func splitIsChargedPerPiece() throws {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 50_000, timeLimitMilliseconds: 60_000))
        let commas = LuaValue.string(String(repeating: ",", count: 100_000))
        let e: LuaError?
        do {
            _ = try run(vm, "local s = ... return #permit.split(s, ',')", [commas])
            e = nil
        } catch {
            e = error
        }
        #expect(e?.kind == .instructionBudgetExceeded, "\(String(describing: e))")
        #expect(e?.message.contains("permit.split") == true)
        let roomy = LuaVM(limits: testLimits)
        #expect(try run(roomy, "local s = ... return #permit.split(s, ',')", [commas]) == [.integer(100_001)])
        #expect(roomy.instructionsUsedByLastCall >= 100_001)
        expectHealthy(vm)
    }
}
