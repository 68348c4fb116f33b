import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// Values a policy can return that look fine to Lua but would break the app later: numbers the
/// ledger's JSON cannot hold, reminders that would replace each other, lists with holes. Both
/// readers (the warm path that reads in place and the general `DecisionReader`) refuse them
/// with the same words.
@Suite struct BadValueTests {
    static func decide(_ body: String) throws -> (fast: Result<Decision?, PolicyError>, general: Result<Decision?, PolicyError>) {
        let policy = try FastPathTests.policy(body)
        let context = FastPathTests.context(.appLaunch)
        return (
            Result { () throws(PolicyError) -> Decision? in try policy.decide(context) },
            Result { () throws(PolicyError) -> Decision? in try policy.generalDecide(context) }
        )
    }

    static func plan(
        _ body: String
    ) throws -> (fast: Result<[ReminderRequest], PolicyError>, general: Result<[ReminderRequest], PolicyError>) {
        let policy = try ReminderFastPathTests.policy(body)
        let context = FastPathTests.context(.appLaunch, status: .authorized)
        return (
            Result { () throws(PolicyError) -> [ReminderRequest] in try policy.planReminders(context) },
            Result { () throws(PolicyError) -> [ReminderRequest] in try policy.generalPlanReminders(context) }
        )
    }

    static func error<T>(_ result: Result<T, PolicyError>, sourceLocation: SourceLocation = #_sourceLocation) -> PolicyError? {
        switch result {
        case .success(let value):
            Issue.record("expected a refusal, got \(value)", sourceLocation: sourceLocation)
            return nil
        case .failure(let error):
            return error
        }
    }

    @Test(arguments: [("0/0", "NaN"), ("math.huge", "math.huge"), ("-math.huge", "-math.huge")])
    func aNumberJSONCannotHoldIsNotRemembered(expression: String, named: String) throws {
        let results = try Self.decide("return { action = 'none', remember = { fine = 1.5, x = \(expression) } }")
        for result in [results.fast, results.general] {
            let error = try #require(Self.error(result))
            #expect(error.kind == .invalidDecision)
            #expect(error.field == "decision.remember.x")
            #expect(error.message.hasPrefix(named))
            #expect(error.message.contains("cannot be remembered"))
        }
        #expect(results.fast.map { _ in 0 } == results.general.map { _ in 0 })
    }

    @Test func finiteFloatsAreStillRemembered() throws {
        let results = try Self.decide("return { action = 'none', remember = { x = 1.5, y = -1e300 } }")
        let decision = try #require(try results.fast.get())
        #expect(decision.remember == ["x": .some(.number(1.5)), "y": .some(.number(-1e300))])
        #expect(try results.general.get() == decision)
    }

    @Test func twoRemindersWithOneIDAreRefused() throws {
        let results = try Self.plan(
            """
            return { { id = 'a', body = 'x' }, { id = 'b', body = 'y' }, { id = 'a', day = 1, body = 'z' } }
            """)
        for result in [results.fast, results.general] {
            let error = try #require(Self.error(result))
            #expect(error.field == "reminders[3].id")
            #expect(error.message.hasPrefix("\"a\" is already the id of reminders[1]"))
        }
    }

    @Test func remindersWithoutIDsOrWithDistinctOnesAreKept() throws {
        let results = try Self.plan("return { { body = 'x' }, { body = 'y' }, { id = 'a', body = 'z' }, { id = 'b', body = 'w' } }")
        #expect(try results.fast.get().map(\.id) == [nil, nil, "a", "b"])
        #expect(try results.general.get() == results.fast.get())
    }

    @Test(arguments: [
        ("return { { body = 'x' }, nil, { body = 'y' } }", 2),
        ("return { [2] = { body = 'y' } }", 1),
        ("return { { body = 'x' }, { body = 'y' }, [5] = { body = 'z' } }", 3),
    ])
    func aReminderListWithAHoleSaysWhere(body: String, hole: Int) throws {
        let results = try Self.plan(body)
        for result in [results.fast, results.general] {
            let error = try #require(Self.error(result))
            #expect(error.field == "reminders")
            #expect(error.message.hasPrefix("reminder list has a hole at index \(hole);"))
        }
    }

    @Test func aReminderTableWithNamesIsStillCalledThat() throws {
        let error = try #require(Self.error(try Self.plan("return { { body = 'x' }, extra = 1 }").general))
        #expect(error.message == "expected a list { {...}, {...} }, got a table with named keys")
    }

    @Test func aTableTooDeepNamesTheFieldItIsIn() throws {
        let results = try Self.decide(
            """
            local t = {} local inner = t for i = 1, 40 do inner.a = {} inner = inner.a end
            return { action = 'none', remember = { deep = t } }
            """)
        for result in [results.fast, results.general] {
            let error = try #require(Self.error(result))
            #expect(error.message == "table nested deeper than 32 levels")
            #expect(error.field?.hasPrefix("decision.remember.deep.a.a.a") == true)
            // Placed at the function that returned it: decide starts on line 4 of fast.lua.
            #expect(error.description.hasPrefix("fast.lua:4: decision.remember.deep.a.a"), "\(error)")
        }
    }

    /// plan_reminders' results are placed the same way: at the line where it starts (4).
    @Test func aCyclicReminderNamesTheLineOfPlanReminders() throws {
        let results = try Self.plan("local r = { body = 'x' } r.again = r return { r }")
        for result in [results.fast, results.general] {
            let error = try #require(Self.error(result))
            #expect(error.message == "cyclic table")
            #expect(error.description == "plans.lua:4: reminders[1].again: cyclic table", "\(error)")
        }
    }

    @Test func aCyclicTableNamesTheFieldItIsIn() throws {
        let results = try Self.decide(
            """
            local t = { list = { 1, 2 } } t.list[3] = t
            return { action = 'none', remember = { ["odd key"] = t } }
            """)
        for result in [results.fast, results.general] {
            let error = try #require(Self.error(result))
            #expect(error.message == "cyclic table")
            #expect(error.field == "decision.remember[\"odd key\"].list[3]")
            #expect(error.file == "fast.lua" && error.line == 4, "\(error)")
        }
    }
}
