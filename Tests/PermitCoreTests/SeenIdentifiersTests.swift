import Foundation
import Testing

@testable import PermitCore

/// The planner's repeated-identifier check answers as a set does, on short lists compared one
/// by one and on long ones hashed.
@Suite struct SeenIdentifiersTests {
    @Test(arguments: [3, SeenIdentifiers.compareOneByOne, SeenIdentifiers.compareOneByOne + 1, 100])
    func answersAsASetDoes(count: Int) {
        var seen = SeenIdentifiers()
        var set = Set<String>()
        let ids = (0..<count).map { "permit.\($0 % max(1, count - 2))" } + ["permit.0", "permit.new", "permit.new"]
        for id in ids {
            #expect(seen.insert(id) == set.insert(id).inserted, "\(id) of \(count)")
        }
    }

    /// Two requests with the same id: the plan keeps the first, in a long list as in a short one.
    @Test(arguments: [2, 40])
    func aPlanKeepsTheFirstOfARepeatedId(count: Int) throws {
        let zone = try #require(TimeZone(identifier: "UTC"))
        let requests =
            (0..<count).map { ReminderRequest(day: 1, hour: 9, body: .plain("first \($0)"), id: "r\($0)") }
            + [ReminderRequest(day: 2, hour: 10, body: "second", id: "r0")]
        let plan = ReminderPlanner.plan(
            requests, now: Date(timeIntervalSince1970: 1_767_600_000), timeZone: zone, locale: "en", pending: [],
            contentShown: true)
        #expect(plan.toSchedule.count == min(count, ReminderPlanner.systemPendingLimit))
        #expect(plan.toSchedule.first { $0.id == "permit.r0" }?.body == "first 0")
    }
}
