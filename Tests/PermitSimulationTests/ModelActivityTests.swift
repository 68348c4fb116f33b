import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// The model's `events` (the app's own events per session) and `travel` (time-zone changes).
@Suite("Model events and travel")
struct ModelActivityTests {
    /// Counts lessons; prompts once, on the 3rd, so the run is not silent.
    static func lessonPolicy() throws -> SimulationPolicy {
        try SimulationPolicy(source: """
            return { name = "lessons-probe", events = { "lesson_completed" },
              decide = function(ctx)
                if ctx.event.name == "lesson_completed" and ctx.history.events.lesson_completed.count == 3 then
                  return { action = "request_permission", options = { "alert" } }
                end
              end }
            """, chunkName: "lessons-probe.lua")
    }

    @Test func eventsAreSentAtTheModelledRatePerSession() async throws {
        let model = try fixedModel("events: { lesson_completed: { per_session: { poisson: 0.6 } } }", sessions: 2, opens: 0)
        let result = await Simulation.run(
            policies: [try Self.lessonPolicy()], model: model, options: SimulationOptions(users: 100, days: 5, seed: 3))
        // 100 users × 5 days × 2 sessions = 1,000 sessions of Poisson(0.6): 600 expected, sd ≈ 24.5.
        let sent = try #require(result.policies[0].answers.appEvents["lesson_completed"])
        #expect((600 - 4 * 25...600 + 4 * 25).contains(sent), "\(sent)")
        #expect(result.policies[0].systemDialogsPerUser > 0, "the policy read the ledger's count")
        #expect(!result.warnings.contains { $0.message.contains("never sends") }, "\(result.warnings)")
        #expect(result.json().contains("\"lesson_completed\""))
    }

    @Test func aModelEventThePolicyDoesNotDeclareIsNotSentAndNamed() async throws {
        let model = try fixedModel("events: { lesson_complete: { per_session: 1 } }", opens: 0)
        let result = await Simulation.run(
            policies: [try Self.lessonPolicy()], model: model, options: SimulationOptions(users: 10, days: 2, seed: 1))
        #expect(result.policies[0].answers.appEvents.isEmpty)
        let messages = result.warnings.map(\.description)
        #expect(messages.contains {
            $0.hasPrefix("lessons-probe: does not declare the event \"lesson_complete\" (test-model.yaml:9) that the model sends")
        }, "\(messages)")
        // The policy compares with "lesson_completed", which the model never sends.
        #expect(messages.contains { $0.contains("names event \"lesson_completed\" that the simulation never sends") })
    }

    @Test func badEventAndTravelKeysNameFileLineAndKey() throws {
        let cases: [(String, Int, String)] = [
            ("events: { LessonDone: { per_session: 1 } }", 13, "events.LessonDone"),
            ("events: { lesson_completed: { per_sesion: 1 } }", 13, "did you mean \"per_session\""),
            ("events: { lesson_completed: { per_session: 1, properties: { course: [a] } } }", 13, "expected a string, number or boolean"),
            ("travel: { share: 0.1, trips_per_month: 1, stay_days: 3, zones: { Mars/Olympus: 1 } }", 13, "not an IANA time zone"),
            ("travel: { share: 0.1, trips_per_month: 45, stay_days: 3, zones: { Asia/Tokyo: 1 } }", 13, "trips per month"),
            ("travel: { share: 0.1, stay_days: 3, zones: { Asia/Tokyo: 1 } }", 13, "missing \"trips_per_month\""),
        ]
        for (line, number, expected) in cases {
            let text = validModel + "\n" + line
            let error = try #require(modelError(text), "\(line)")
            #expect(error.location?.file == "models/bad.yaml")
            #expect(error.location?.line == number, "\(error)")
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    /// Every user flies to Tokyo on day 2, back on day 4, out again on day 6. The policy remembers
    /// hearing the change to Tokyo on Tokyo's calendar day 2 (2026-01-06) while UTC is still on
    /// day 1 (the local day moved with the zone, before the day's first session), and asks at
    /// the next launch.
    @Test func travelMovesTheDeviceAndTheLocalDay() async throws {
        let model = try fixedModel("""
            travel: { share: 1, trips_per_month: 30, stay_days: 2, zones: { Asia/Tokyo: 1 } }
            """, opens: 0)
        let policy = try inline("tz-probe", """
            if ctx.event.name == "significant_time_change" and ctx.event.time_zone == "Asia/Tokyo"
                and ctx.local_time.date == "2026-01-06" and ctx.now < 1767657600 then
              return { action = "none", remember = { arrived = true } }
            end
            if ctx.event.name == "app_launch" and ctx.state.arrived and ctx.status == "not_determined" then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let result = await Simulation.run(
            policies: [policy], model: model, options: SimulationOptions(users: 20, days: 6, seed: 5))
        #expect(result.policies[0].answers.timeZoneChanges == 60)
        #expect(result.policies[0].errors.isEmpty, "\(result.policies[0].errors)")
        #expect(result.policies[0].answers.dialogsCold == 20, "each user asked once, at the first launch after arriving")
        // Without travel, no change reaches the policy.
        let home = await Simulation.run(
            policies: [policy], model: try fixedModel(opens: 0), options: SimulationOptions(users: 20, days: 6, seed: 5))
        #expect(home.policies[0].answers.timeZoneChanges == 0)
        #expect(home.policies[0].answers.dialogsCold == 0)
    }

    @Test func localMidnightFollowsTheZone() {
        let utc = 1_767_571_200.0  // 2026-01-05T00:00:00Z
        #expect(UserSimulation.localMidnight(of: utc, in: TimeZone(identifier: "Asia/Tokyo")!) == utc - 9 * 3600)
        #expect(UserSimulation.localMidnight(of: utc, in: TimeZone(identifier: "America/New_York")!) == utc + 5 * 3600)
    }

    @Test func travelAndEventsAreTheSameWhateverTheWorkerCount() async throws {
        let model = try fixedModel("""
            events: { lesson_completed: { per_session: { poisson: 0.8 }, properties: { course: verbs, minutes: 5 } } }
            travel: { share: 0.5, trips_per_month: 4, stay_days: { uniform: [1, 3] }, zones: { Asia/Tokyo: 0.5, America/New_York: 0.5 } }
            """)
        let users = SimulationOptions.blockSize + 7
        let one = await Simulation.run(
            policies: [try Self.lessonPolicy()], model: model, options: SimulationOptions(users: users, days: 6, seed: 9, workers: 1))
        let three = await Simulation.run(
            policies: [try Self.lessonPolicy()], model: model, options: SimulationOptions(users: users, days: 6, seed: 9, workers: 3))
        #expect(one.json() == three.json())
        #expect(one.policies[0].answers.timeZoneChanges > 0)
    }
}
