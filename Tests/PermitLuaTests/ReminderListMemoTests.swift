import CLuaShim
import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// An unchanged `plan_reminders` list is answered with the list read last time
/// (`ReminderListMemo`): it must be used when the contents are the same, and never when
/// anything the reader looks at differs, whether the policy builds fresh tables or changes the
/// ones it returned before.
@Suite struct ReminderListMemoTests {
    /// A policy whose list is `lists[ctx.params.v]()`: each call builds it afresh, or changes
    /// the tables kept from the call before.
    static func policy(_ lists: String) throws -> LuaPolicy {
        try LuaPolicy(
            source: """
                local kept = { { body = { en = 'a', de = 'b' }, hour = 9 } }
                local lists = { \(lists) }
                return {
                  name = "memo",
                  params = { v = 1 },
                  decide = function(ctx) return nil end,
                  plan_reminders = function(ctx) return lists[ctx.params.v]() end,
                }
                """, chunkName: "memo.lua", limits: testLimits)
    }

    /// Calls the fast path with `v` in turn, each result checked against the general path.
    static func expectEachCallIsTheGeneralPaths(_ policy: LuaPolicy, versions: [Int]) -> [[ReminderRequest]?] {
        versions.map { v in
            let context = FastPathTests.context(.appLaunch, status: .authorized, params: ["v": .integer(Int64(v))])
            let fast = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.planReminders(context) }
            let general = Result { () throws(PolicyError) -> [ReminderRequest] in try policy.generalPlanReminders(context) }
            ReminderFastPathTests.expectSame(fast, general)
            #expect(policy.stackTopForTesting == 0)
            return try? fast.get()
        }
    }

    @Test func aListWithTheSameContentsIsAnsweredUnread() throws {
        let fresh =
            "function() local t = { en = 'mood', de = 'Laune' } return { { body = t, title = t, hour = 9 }, { body = t, hour = 20, badge = 1 } } end"
        let policy = try Self.policy("\(fresh), \(fresh)")
        let results = Self.expectEachCallIsTheGeneralPaths(policy, versions: [1, 1, 2, 1])
        #expect(policy.reminderListHitsForTesting == 3)
        #expect(Set(results.map { $0?.count }) == [2])
    }

    @Test(arguments: [
        // a text of a shared table of translations
        (
            "function() local t = { en = 'a' } return { { body = t, title = t } } end",
            "function() local t = { en = 'b' } return { { body = t, title = t } } end", 0
        ),
        // a table shared, then two tables with the same first one
        (
            "function() local t = { en = 'a' } return { { body = t, title = t } } end",
            "function() return { { body = { en = 'a' }, title = { en = 'c' } } } end", 0
        ),
        // a whole number, then the same number as a float (left to the general path, which takes
        // it: the same reminder, but not the same bytes, so not answered from the memo)
        ("function() return { { body = 'x', hour = 9 } } end", "function() return { { body = 'x', hour = 9.0 } } end", 1),
        // one more reminder
        ("function() return { { body = 'x' } } end", "function() return { { body = 'x' }, { body = 'x', hour = 10 } } end", 0),
        // a field left out
        ("function() return { { body = 'x', badge = 1 } } end", "function() return { { body = 'x' } } end", 0),
        // a boolean flipped
        ("function() return { { body = 'x', sound = true } } end", "function() return { { body = 'x', sound = false } } end", 0),
        // the same tables, changed in place between calls
        ("function() kept[1].hour = 9 return kept end", "function() kept[1].hour = 10 return kept end", 0),
        ("function() kept[1].body.de = 'b' return kept end", "function() kept[1].body.de = 'c' return kept end", 0),
        ("function() kept[2] = nil return kept end", "function() kept[2] = { body = 'y' } return kept end", 0),
        // refused by the reader, so never remembered: the third call is the first's again
        ("function() return { { body = 'x' } } end", "function() return setmetatable({ { body = 'x' } }, {}) end", 1),
        // a value the reader refuses after one it took
        ("function() return { { body = 'x' } } end", "function() return { { body = 'x', id = {} } } end", 1),
    ])
    func aChangedListIsReadAgain(first: String, second: String, hits: Int) throws {
        let policy = try Self.policy("\(first), \(second)")
        let results = Self.expectEachCallIsTheGeneralPaths(policy, versions: [1, 2, 1, 2])
        #expect(results[0] == results[2])
        #expect(results[1] == results[3])
        // A list the reader refused is not remembered: the third call is the first's again.
        #expect(policy.reminderListHitsForTesting == hits)
    }

    /// A list that names one long string many times is small in Lua's memory but huge written
    /// out: the memo must give up at PERMIT_REMINDER_LIST_MAX_BYTES instead of asking the host
    /// for the whole encoding (here 40 × 512 KiB = 20 MiB; with more names, gigabytes), and the
    /// list is then read as the general path reads it.
    @Test func aListWhoseBytesPassTheCapIsReadWithoutTheMemo() throws {
        let big = "function() local s = string.rep('x', 512 * 1024) local t = {} for i = 1, 40 do t[i] = s end return { { body = t } } end"
        let policy = try Self.policy("\(big), \(big)")
        let results = Self.expectEachCallIsTheGeneralPaths(policy, versions: [1, 1])
        #expect(results == [nil, nil], "the reader refuses a body that is not a table of translations")
        #expect(policy.reminderListHitsForTesting == 0)
        #expect(policy.reminderListBufferBytesForTesting <= Int(PERMIT_REMINDER_LIST_MAX_BYTES))
    }
}
