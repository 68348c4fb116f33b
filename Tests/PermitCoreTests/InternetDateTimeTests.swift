import Foundation
import Testing

@testable import PermitCore

/// The one ISO 8601 reader and writer of scenario and model dates and manifest times.
@Suite struct InternetDateTimeTests {
    @Test func readsAZoneAndWritesUTC() throws {
        let date = try #require(InternetDateTime.date(from: "2026-01-05T10:00:00+02:00"))
        #expect(date == Date(timeIntervalSince1970: 1_767_600_000))
        #expect(InternetDateTime.string(from: date) == "2026-01-05T08:00:00Z")
        #expect(InternetDateTime.date(from: "2026-01-05T08:00:00Z") == date)
    }

    @Test(arguments: ["2026-01-05T08:00:00", "2026-01-05", "08:00:00Z", "soon", ""])
    func refusesATextWithoutADateTimeAndZone(text: String) {
        #expect(InternetDateTime.date(from: text) == nil)
    }

    /// One formatter serves every thread (under its lock): many tasks at once each get their
    /// own moment back. Under ThreadSanitizer (`make sanitize`) a missing lock is a report.
    @Test func manyTasksAtOnceGetTheirOwnAnswers() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<200 {
                        let date = Date(timeIntervalSince1970: TimeInterval(1_767_600_000 + task * 86_400 + step * 61))
                        if InternetDateTime.date(from: InternetDateTime.string(from: date)) != date { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
