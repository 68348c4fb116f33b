import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// A strict ctx: a field no ctx table has is an error at the policy's line with "did you
/// mean"; a field that may be absent, and every open table, still read nil.
@Suite struct StrictContextTests {
    static func run(_ body: String, event: AppEvent = .featureOpened("diary"), ledger: Ledger = Ledger()) -> Result<String?, PolicyError> {
        let source = """
            return {
              name = "strict",
              params = { gap = 3, nested = { a = 1 } },
              events = { "lesson_completed" },
              decide = function(ctx)
                return { action = "none", reason = tostring(\(body)) }
              end,
            }
            """
        return Result { () throws(PolicyError) -> String? in
            let policy = try LuaPolicy(source: source, chunkName: "strict.lua", limits: testLimits)
            return try policy.decide(FastPathTests.context(event, history: ledger))?.reason
        }
    }

    @Test(arguments: [
        ("ctx.histroy", #"strict.lua:6: ctx has no field "histroy"; did you mean "history"?"#),
        (
            "ctx.capabilities.notification_setting_link",
            #"strict.lua:6: ctx.capabilities has no field "notification_setting_link"; did you mean "notification_settings_link"?"#
        ),
        ("ctx.history.soft_prompt.shwon", #"strict.lua:6: ctx.history.soft_prompt has no field "shwon"; did you mean "shown"?"#),
        ("ctx.event.feture", #"strict.lua:6: ctx.event has no field "feture"; did you mean "feature"?"#),
        ("ctx.settings.alrt", #"strict.lua:6: ctx.settings has no field "alrt"; did you mean "alert"?"#),
        ("ctx.platform.majr", #"strict.lua:6: ctx.platform has no field "majr"; did you mean "major"?"#),
        ("ctx.user.bukket", #"strict.lua:6: ctx.user has no field "bukket"; did you mean "bucket"?"#),
        ("ctx.local_time.hours", #"strict.lua:6: ctx.local_time has no field "hours"; did you mean "hour"?"#),
        ("ctx.history.system_prompt.grnted", #"strict.lua:6: ctx.history.system_prompt has no field "grnted"; did you mean "granted"?"#),
        ("ctx.history.settings_prompt.opend", #"strict.lua:6: ctx.history.settings_prompt has no field "opend"; did you mean "opened"?"#),
        ("ctx.history.features.diary.opend", #"strict.lua:6: a ctx.history.features entry has no field "opend"; did you mean "opened"?"#),
        (
            "ctx.history.events.lesson_complete",
            #"strict.lua:6: ctx.history.events has no field "lesson_complete"; did you mean "lesson_completed"? (an app event is listed in the policy's events = { ... })"#
        ),
        (
            "ctx.history.events.lesson_completed.cont",
            #"strict.lua:6: a ctx.history.events entry has no field "cont"; did you mean "count"?"#
        ),
        (
            "ctx.params.gpa",
            #"strict.lua:6: ctx.params has no field "gpa"; did you mean "gap"? (a param is declared with its default in the policy's params = { ... })"#
        ),
        ("ctx.xyzzy", #"strict.lua:6: ctx has no field "xyzzy""#),
    ])
    func anUnknownFieldIsAnErrorAtItsLine(path: String, message: String) {
        var ledger = Ledger()
        ledger.features["diary"] = Ledger.FeatureHistory()
        switch Self.run(path, ledger: ledger) {
        case .success(let reason): Issue.record("\(path) read \(reason ?? "nothing")")
        case .failure(let error): #expect(error.description == message)
        }
    }

    @Test(arguments: [
        ("ctx.history.soft_prompt.last_shown_at", "nil"),  // optional, before the first prompt
        ("ctx.history.first_launch_at", "nil"),
        ("ctx.history.system_prompt.granted", "nil"),
        ("ctx.event.answer", "nil"),  // another kind of event's field
        ("ctx.event.properties", "nil"),
        ("ctx.state.anything", "nil"),  // open: what the policy remembers
        ("ctx.history.state.anything", "nil"),
        ("ctx.history.features.never_opened", "nil"),  // open: any feature name
        ("ctx.params.nested.b", "nil"),  // inside a param: the policy's own data
        ("ctx.history.events.lesson_completed.count", "0"),  // declared, not happened
        ("ctx.history.events.lesson_completed.last_at", "nil"),
        ("ctx[1]", "nil"),  // not a name: ipairs and # behave as before
        ("#ctx.settings", "0"),
        ("getmetatable(ctx.history)", "false"),
        ("pcall(setmetatable, ctx.settings, {})", "false"),
        // Caught like any error, with its line: strict.lua:6 is the line that read it.
        ("permit.starts_with(select(2, pcall(function() return ctx.histroy end)), 'strict.lua:6: ctx has no field')", "true"),
    ])
    func whatMayBeAbsentReadsNil(path: String, expected: String) {
        #expect((try? Self.run(path).get()) == expected, "\(path)")
    }

    @Test func anAppEventsPropertiesAreOpen() throws {
        let event = try AppEvent.custom("lesson_completed", properties: ["count": 2])
        #expect((try? Self.run("ctx.event.properties.count", event: event).get()) == "2")
        #expect((try? Self.run("ctx.event.properties.missing", event: event).get()) == "nil")
    }
}
