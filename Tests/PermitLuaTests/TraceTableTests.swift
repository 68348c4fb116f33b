import Testing

@testable import PermitLua

/// `print` and `permit.log` show a table's contents, bounded, in a stable order, never an address.
@Suite struct TraceTableTests {
    func printed(_ source: String, limits: LuaLimits = testLimits) throws -> String {
        let vm = LuaVM(limits: limits)
        try run(vm, source)
        return vm.drainTrace().text
    }

    @Test func aTableShowsItsEntriesWithKeysInOrder() throws {
        let text = try printed(
            """
            permit.log({ b = { c = 2, d = { e = 1 } }, a = 1, "x", 2, [true] = "y", [10] = false, ["two words"] = "v" }, {})
            """)
        #expect(text == "{\"x\", 2, [10] = false, a = 1, b = {c = 2, d = {…}}, [\"two words\"] = \"v\", [true] = \"y\"}\t{}\n")
    }

    @Test func aLargeTableShowsItsSmallestKeysTheSameOnEveryRun() throws {
        let source = "local t = {} for i = 1, 300 do t['k' .. i] = i end print(t)"
        let first = try printed(source)
        #expect(first.hasPrefix("{k1 = 1, k10 = 10, k100 = 100, k101 = 101,"), "\(first)")
        #expect(first.hasSuffix(", …}\n"))
        #expect(first.components(separatedBy: " = ").count - 1 == 32)
        for _ in 0..<3 { #expect(try printed(source) == first, "a fresh VM has a fresh hash seed") }
        let sequence = try printed("local t = {} for i = 1, 1000 do t[i] = i end print(t)")
        #expect(sequence.hasPrefix("{1, 2, 3,") && sequence.hasSuffix("31, 32, …}\n"))
    }

    @Test func longTextIsCutAndTostringAndFunctionsKeepTheirForm() throws {
        let text = try printed(
            """
            print({ s = string.rep("x", 1000) }, setmetatable({}, { __tostring = function() return "custom" end }), { f = print })
            """)
        #expect(text == "{s = \"" + String(repeating: "x", count: 60) + "…\"}\tcustom\t{f = function: #1}\n", "\(text)")
        let wide = try printed("local t = {} for i = 1, 32 do t[i] = string.rep('y', 50) end print(t)")
        #expect(wide.utf8.count <= 400 + 3 + 1 && wide.hasSuffix("…\n"), "the whole form is bounded: \(wide.utf8.count) bytes")
    }

    /// Every entry looked at is charged: printing a big table in a loop runs out of budget.
    @Test func showingTablesIsChargedToTheBudget() {
        let vm = LuaVM(limits: LuaLimits(instructionsPerCall: 100_000, timeLimitMilliseconds: 0))
        let e = failure(vm, "local t = {} for i = 1, 3000 do t['k' .. i] = i end for _ = 1, 100 do permit.log(t) end")
        #expect(e?.kind == .instructionBudgetExceeded, "\(String(describing: e))")
        expectHealthy(vm)
    }
}
