import Foundation
import PermitCore
import Testing

@testable import PermitSimulation

/// `session_hours`: when in the day sessions start. The default keeps every session between
/// 08:00 and 22:00 (and draws exactly as a model without the key did); `[0, 24]` opens the app
/// at night too, so a policy's quiet hours are met.
@Suite("Session hours")
struct SessionHoursTests {
    /// The hours (UTC, the default home zone) at which sessions started, from the records.
    static func sessionHours(_ extra: String, users: Int = 300) async throws -> (hours: [Int], json: String) {
        let model = try fixedModel(extra, sessions: 2)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-hours-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        let result = await Simulation.run(
            policies: [try inline("quiet", "return nil")], model: model,
            options: SimulationOptions(users: users, days: 4, seed: 3, workers: 2), records: log)
        try log.finish(policies: 1, users: users)
        let text = try String(contentsOf: file, encoding: .utf8)
        let hours = text.split(separator: "\n").compactMap { line -> Int? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let record = object["record"] as? [String: Any], let time = record["time"] as? Int,
                let event = (record["event"] as? [String: Any])?["name"] as? String, event == "app_launch" || event == "app_foreground"
            else { return nil }
            return (time % 86_400) / 3600
        }
        return (hours, result.json())
    }

    @Test func theDefaultNeverOpensTheAppAtNightAndDrawsAsBefore() async throws {
        let plain = try await Self.sessionHours("")
        let explicit = try await Self.sessionHours("session_hours: [8, 22]")
        #expect(!plain.hours.isEmpty && plain.hours.allSatisfy { (8..<22).contains($0) })
        #expect(plain.json == explicit.json, "the default is [8, 22], drawn the same way")
    }

    /// Known answer: over the whole day, 10 of 24 hours are night (22:00–08:00).
    @Test func aWholeDayWindowOpensTheAppAtNight() async throws {
        let night = try await Self.sessionHours("session_hours: [0, 24]").hours
        let share = Double(night.filter { $0 < 8 || $0 >= 22 }.count) / Double(night.count)
        #expect(night.count > 1_500 && abs(share - 10.0 / 24) < 0.05, "\(night.count) sessions, \(share) at night")
    }

    @Test func badHoursNameTheLineAndTheFix() throws {
        for (hours, message) in [
            ("[22, 8]", "is not before the end hour"), ("[8]", "expected [start, end] hours"), ("[0, 25]", "out of range"),
        ] {
            #expect(throws: (any Error).self) { try fixedModel("session_hours: \(hours)") }
            do {
                _ = try fixedModel("session_hours: \(hours)")
            } catch {
                #expect(String(describing: error).contains("session_hours") && String(describing: error).contains(message), "\(error)")
            }
        }
    }
}
