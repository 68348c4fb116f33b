import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `plan_reminders`' list read in place against the general path (every result copied, then
/// `DecisionReader.reminders`): the same reminders, the same errors word for word.
@Suite struct ReminderFastPathTests {
    static func policy(_ body: String, limits: LuaLimits = testLimits) throws -> LuaPolicy {
        try LuaPolicy(
            source: """
                return {
                  name = "plans",
                  decide = function(ctx) return nil end,
                  plan_reminders = function(ctx)
                \(body)
                  end,
                }
                """, chunkName: "plans.lua", limits: limits)
    }

    static let bodies: [String] = [
        "return nil",
        "return",
        "return {}",
        "return { { body = 'x' } }",
        "return { { day = 2, hour = 21, minute = 30, title = 'T', body = { en = 'B', ['zh-Hans'] = '乙' }, action = 'open', sound = false, badge = 3, id = 'r1' } }",
        "local l = {} for d = 0, 6 do for _, h in ipairs({ 9, 20 }) do l[#l + 1] = { day = d, hour = h, body = { en = 'mood', de = 'Laune' }, title = { en = 'Mood' } } end end return l",
        // One table of translations shared by several reminders (read once, counted each time).
        "local t = { en = 'a', de = 'b' } return { { body = t, title = t }, { body = t, hour = 10 } }",
        // Keys beyond ASCII: valid UTF-8 is read in place, anything else by the general path.
        "return { { body = { ['日本'] = 'a', en = 'b' } } }",
        // Handed to the general path: each is an error there.
        "return 5",
        "return { { body = 'x' }, nil, { body = 'y' } }",
        "return { { body = 'x' }, extra = 1 }",
        "return { 'x' }",
        "return { {} }",
        "return { { body = 'x', day = -1 } }",
        "return { { body = 'x', day = 3651 } }",
        "return { { body = 'x', hour = 24 } }",
        "return { { body = 'x', minute = 1.5 } }",
        "return { { body = 'x', hour = 9.0 } }",
        "return { { body = 'x', badge = 100000 } }",
        "return { { body = 'x', sound = 'yes' } }",
        "return { { body = 'x', colour = 'red' } }",
        "return { { body = 'x', [1] = 2 } }",
        "return { { body = {} } }",
        "return { { body = { ['\\xff'] = 'a', ['\\xfe'] = 'b' } } }",
        "local t = { en = 'a' } return { { body = t }, { body = t, hour = 10, title = { en = 5 } } }",
        "return { { body = { en = 5 } } }",
        "return { { body = string.rep('x', 2001) } }",
        "return { { body = 'x', action = 5 } }",
        "return { { body = 'x', id = {} } }",
        "return { { body = 'x', interruption_level = 'time_sensitive' }, { body = 'y', interruption_level = 'passive' } }",
        "return { { body = 'x', interruption_level = 'urgent' } }",
        "return { { body = 'x', interruption_level = 2 } }",
        "return { setmetatable({ body = 'x' }, {}) }",
        "return setmetatable({ { body = 'x' } }, {})",
        "local r = { body = 'x' } setmetatable({}, r) return { r }",
        "local l = {} for i = 1, 257 do l[i] = { body = 'x' } end return l",
        "return { { body = 'x' } }, 5",
    ]

    static func expectSame(
        _ fast: Result<[ReminderRequest], PolicyError>, _ general: Result<[ReminderRequest], PolicyError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch (fast, general) {
        case (.success(let a), .success(let b)):
            #expect(a == b, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a.description == b.description, sourceLocation: sourceLocation)
        default:
            Issue.record("fast \(fast) vs general \(general)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ReminderFastPathTests.bodies)
    func remindersAreTheGeneralPathsWordForWord(body: String) throws {
        let policy = try Self.policy(body)
        let context = FastPathTests.context(.appLaunch, status: .authorized)
        let fast = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.planReminders(context) }
        let general = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.generalPlanReminders(context) }
        Self.expectSame(fast, general)
        #expect(policy.stackTopForTesting == 0)
    }

    @Test func theListIsReadInFull() throws {
        let policy = try Self.policy(Self.bodies[4])
        let reminders = try policy.planReminders(FastPathTests.context(.appLaunch, status: .authorized))
        #expect(
            reminders == [
                ReminderRequest(
                    day: 2, hour: 21, minute: 30, title: .plain("T"), body: .translations(["en": "B", "zh-Hans": "乙"]),
                    action: "open", sound: false, badge: 3, id: "r1")
            ])
    }

    @Test func aSharedTranslationTableCountsItsValuesEveryTime() throws {
        // 1 value for the list, 2 per item and per field, 4 per use of the two translations: 23,
        // the shared table's counting at each of its three uses, as the general path copies it.
        var outcomes: [Bool] = []
        for limit in [21, 22, 23, 24] {
            let policy = try Self.policy(
                "local t = { en = 'a', de = 'b' } return { { body = t, title = t }, { body = t } }",
                limits: LuaLimits(timeLimitMilliseconds: 60_000, maxConvertedValues: limit))
            let context = FastPathTests.context(.appLaunch, status: .authorized)
            let fast = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.planReminders(context) }
            let general = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.generalPlanReminders(context) }
            Self.expectSame(fast, general)
            outcomes.append((try? fast.get()) != nil)
        }
        #expect(outcomes.contains(false) && outcomes.contains(true))
    }

    @Test func aLowValueLimitIsHonouredAlike() throws {
        // The list counts 11 values: the list, the item's key and table, body's and hour's keys
        // and values, two translations' keys and values.
        var outcomes: [Bool] = []
        for limit in [8, 9, 10, 11, 12, 100] {
            let policy = try Self.policy(
                "return { { body = { en = 'a', de = 'b' }, hour = 8 } }",
                limits: LuaLimits(timeLimitMilliseconds: 60_000, maxConvertedValues: limit))
            let context = FastPathTests.context(.appLaunch, status: .authorized)
            let fast = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.planReminders(context) }
            let general = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.generalPlanReminders(context) }
            Self.expectSame(fast, general)
            outcomes.append((try? fast.get()) != nil)
        }
        #expect(outcomes == [false, false, false, true, true, true])
    }
}
