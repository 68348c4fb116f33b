import Testing

@testable import PermitCore
@testable import PermitLua

/// A policy that runs out of memory gets an error that says where, like every other error:
/// Lua gives a memory error no line, so it names the file and the policy function that ran.
@Suite struct MemoryErrorLocationTests {
    static let limits = LuaLimits(instructionsPerCall: 200_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 4 << 20)

    static func hog(_ function: String) throws -> LuaPolicy {
        try LuaPolicy(
            source: """
                local function grow()
                  local t = {}
                  for i = 1, 1e9 do t[i] = { i } end
                end
                return {
                  name = "hog",
                  decide = function(ctx) \(function == "decide" ? "grow()" : "") return nil end,
                  plan_reminders = function(ctx) \(function == "plan_reminders" ? "grow()" : "") return {} end,
                }
                """, chunkName: "hog.lua", limits: limits)
    }

    static var context: PolicyContext {
        let version = OSVersion(major: 16, minor: 4)
        return PolicyContext(
            event: .appLaunch, status: .authorized, previousStatus: .authorized,
            settings: .typical(for: .authorized, on: version), platform: Platform(version: version), history: Ledger(),
            now: 1_767_600_000)
    }

    @Test func decideNamesTheFileAndFunction() throws {
        let error = #expect(throws: PolicyError.self) { _ = try Self.hog("decide").decide(Self.context) }
        #expect(error?.kind == .memory)
        #expect(error?.file == "hog.lua")
        #expect(error?.description.hasPrefix("hog.lua") == true, "\(String(describing: error))")
        #expect(error?.description.contains("ran out of memory in decide") == true, "\(String(describing: error))")
    }

    @Test func planRemindersNamesItsFunction() throws {
        let error = #expect(throws: PolicyError.self) { _ = try Self.hog("plan_reminders").planReminders(Self.context) }
        #expect(error?.kind == .memory)
        #expect(error?.description.contains("hog.lua") == true)
        #expect(error?.description.contains("ran out of memory in plan_reminders") == true, "\(String(describing: error))")
    }
}
