import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// Events of the app's own: what a policy declares and reads (`ctx.event.properties`,
/// `ctx.history.events`), on the warm path as on the general one.
@Suite struct AppEventTests {
    static let source = """
        return {
          name = "lessons",
          events = { "lesson_completed", "streak_opened" },
          decide = function(ctx)
            local lessons = ctx.history.events.lesson_completed
            local streak = ctx.history.events.streak_opened
            return { action = "none", reason = ctx.event.name .. " count=" .. tostring(ctx.event.properties and ctx.event.properties.count)
              .. " lessons=" .. lessons.count .. " at=" .. tostring(lessons.last_at) .. " streak=" .. streak.count }
          end,
        }
        """

    static func reason(_ policy: LuaPolicy, _ event: AppEvent, ledger: Ledger = Ledger()) throws -> String? {
        try policy.decide(FastPathTests.context(event, history: ledger))?.reason
    }

    @Test func aPolicyReadsTheEventItsPropertiesAndItsCounts() throws {
        let policy = try LuaPolicy(source: Self.source, chunkName: "lessons.lua", limits: testLimits)
        #expect(policy.declaredEvents == ["lesson_completed", "streak_opened"])
        // Declared events read as count 0 before they happen.
        #expect(try Self.reason(policy, .appLaunch) == "app_launch count=nil lessons=0 at=nil streak=0")
        var ledger = Ledger()
        ledger.record(try .custom("lesson_completed", properties: ["count": .integer(2)]), at: 1_767_600_000, legacy: false)
        let event = try AppEvent.custom("lesson_completed", properties: ["count": .integer(2)])
        #expect(try Self.reason(policy, event, ledger: ledger) == "lesson_completed count=2 lessons=1 at=1767600000 streak=0")
    }

    @Test func theWarmPathBuildsTheGeneralPathsContextForDeclaredEvents() throws {
        let policy = try LuaPolicy(source: Self.source, chunkName: "lessons.lua", limits: testLimits)
        for ledger in [Ledger(), FastPathTests.fullLedger] {
            for event in FastPathTests.events {
                let (fast, general) = try policy.contextsForTesting(FastPathTests.context(event, history: ledger))
                #expect(fast == general, "\(event)")
            }
        }
    }

    @Test(arguments: [
        ("events = \"lesson_completed\",", "expected a list of event names"),
        ("events = { \"app_launch\" },", "\"app_launch\" is a built-in event"),
        ("events = { \"Lesson Done\" },", "\"Lesson Done\" is not an event name"),
        ("events = { \"lesson_completed\", \"lesson_completed\" },", "\"lesson_completed\" is listed twice"),
        ("events = { 42 },", "expected event names (strings)"),
    ])
    func aBadDeclarationIsALoadErrorWithItsLine(declaration: String, message: String) throws {
        let source = "return {\n  name = \"bad\",\n  \(declaration)\n  decide = function(ctx) return nil end,\n}\n"
        do {
            _ = try LuaPolicy(source: source, chunkName: "bad.lua", limits: testLimits)
            Issue.record("loaded")
        } catch {
            #expect(error.description.hasPrefix("bad.lua:3: policy.events: "), "\(error)")
            #expect(error.description.contains(message), "\(error)")
        }
    }
}
