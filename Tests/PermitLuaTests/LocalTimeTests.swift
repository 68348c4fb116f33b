import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `ctx.local_time` as a policy reads it, and `permit.within_hours`: its window includes the
/// first hour and excludes the last, wraps past midnight, and refuses arguments that do not
/// say what window is meant.
@Suite struct LocalTimeLuaTests {
    static func context(hour: Int, minute: Int = 0) -> PolicyContext {
        let version = OSVersion(major: 16, minor: 4)
        return PolicyContext(
            event: .appLaunch, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version),
            history: Ledger(), now: 1_788_667_200,
            localTime: LocalTime(date: "2026-09-06", hour: hour, minute: minute, weekday: 7, timeZone: "America/Santiago"))
    }

    /// The `reason` of a decision whose reason is `expression`'s value as text.
    static func evaluate(_ expression: String, at context: PolicyContext) throws -> String {
        let policy = try LuaPolicy(
            source: """
                return { name = "t", decide = function(ctx) return { action = "none", reason = tostring(\(expression)) } end }
                """, chunkName: "t.lua")
        return try #require(try policy.decide(context)?.reason)
    }

    static func error(_ expression: String) -> String {
        do {
            return "no error: \(try evaluate(expression, at: context(hour: 12)))"
        } catch {
            return "\(error)"
        }
    }

    @Test func aPolicyReadsTheLocalTime() throws {
        let context = Self.context(hour: 1, minute: 5)
        #expect(
            try Self.evaluate(
                #"ctx.local_time.date .. " " .. ctx.local_time.hour .. ":" .. ctx.local_time.minute .. " " .. ctx.local_time.weekday .. " " .. ctx.local_time.timezone"#,
                at: context) == "2026-09-06 1:5 7 America/Santiago")
        // Iterating ctx (which builds every lazy field at once) finds it too.
        #expect(
            try Self.evaluate(
                #"(function() for k, v in pairs(ctx) do if k == "local_time" then return v.hour end end end)()"#,
                at: context) == "1")
    }

    @Test(arguments: [(21, false), (22, true), (23, true), (0, true), (7, true), (8, false), (12, false)])
    func quietHoursWrapPastMidnight(hour: Int, quiet: Bool) throws {
        #expect(try Self.evaluate("permit.within_hours(ctx, 22, 8)", at: Self.context(hour: hour, minute: 59)) == "\(quiet)")
    }

    @Test(arguments: [(8, false), (9, true), (16, true), (17, false), (0, false)])
    func aDaytimeWindowDoesNotWrap(hour: Int, inside: Bool) throws {
        #expect(try Self.evaluate("permit.within_hours(ctx, 9, 17)", at: Self.context(hour: hour)) == "\(inside)")
    }

    @Test func badArgumentsAreClearErrors() {
        #expect(Self.error("permit.within_hours(ctx, 22.5, 8)").contains("from_hour must be a whole hour 0-23 (got number)"))
        #expect(Self.error("permit.within_hours(ctx, 22, 24)").contains("to_hour must be a whole hour 0-23 (got 24)"))
        #expect(Self.error("permit.within_hours(ctx, -1, 8)").contains("from_hour must be a whole hour 0-23 (got -1)"))
        #expect(Self.error("permit.within_hours(ctx, '22', 8)").contains("from_hour must be a whole hour 0-23 (got string)"))
        #expect(Self.error("permit.within_hours(ctx, 9, 9)").contains("from_hour and to_hour are both 9"))
        #expect(Self.error("permit.within_hours({}, 22, 8)").contains("ctx.local_time is not a table"))
        #expect(Self.error("permit.within_hours(ctx, 22, 8)").hasPrefix("no error"))
        // The error names the policy's file and line, like every other.
        #expect(Self.error("permit.within_hours(ctx, 9, 9)").contains("t.lua:1"))
    }
}
