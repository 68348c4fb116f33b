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
        try SimulationPolicy(
            source: """
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
        #expect(
            messages.contains {
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
            ("home_zones: { Europe/Berlim: 1 }", 13, "home_zones.Europe/Berlim: \"Europe/Berlim\" is not an IANA time zone"),
            ("home_zones: { Europe/Berlin: 0.5, Asia/Tokyo: 0.4 }", 13, "the shares add up to 0.900, not 1"),
        ]
        for (line, number, expected) in cases {
            let text = validModel + "\n" + line
            let error = try #require(modelError(text), "\(line)")
            #expect(error.location?.file == "models/bad.yaml")
            #expect(error.location?.line == number, "\(error)")
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    /// Every user flies to Tokyo on day 2, back on day 4, out again on day 6. With every session
    /// after the first a return to the foreground, the app hears the change to Tokyo at its first
    /// session there, on Tokyo's calendar day 2 (2026-01-06: the local day moved with the zone),
    /// and the policy asks at the next return.
    @Test func travelMovesTheDeviceAndTheLocalDay() async throws {
        let model = try fixedModel(
            """
            travel: { share: 1, trips_per_month: 30, stay_days: 2, zones: { Asia/Tokyo: 1 } }
            cold_launch_share: 0
            """, opens: 0)
        let policy = try inline(
            "tz-probe",
            """
            if ctx.event.name == "significant_time_change" and ctx.event.time_zone == "Asia/Tokyo"
                and ctx.local_time.date == "2026-01-06" then
              return { action = "none", remember = { arrived = true } }
            end
            if ctx.event.name == "app_foreground" and ctx.state.arrived and ctx.status == "not_determined" then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let result = await Simulation.run(
            policies: [policy], model: model, options: SimulationOptions(users: 20, days: 6, seed: 5))
        #expect(result.policies[0].answers.timeZoneChanges == 60)
        #expect(result.policies[0].errors.isEmpty, "\(result.policies[0].errors)")
        #expect(result.policies[0].answers.dialogsCold == 20, "each user asked once, at the first return after arriving")
        // Without travel, no change reaches the policy.
        let home = await Simulation.run(
            policies: [policy], model: try fixedModel("cold_launch_share: 0", opens: 0),
            options: SimulationOptions(users: 20, days: 6, seed: 5))
        #expect(home.policies[0].answers.timeZoneChanges == 0)
        #expect(home.policies[0].answers.dialogsCold == 0)
    }

    /// A time change reaches the engine only when the app returns to the foreground (Z-02): never
    /// while it is suspended, and never at a cold launch, which reads the zone itself. With every
    /// session a cold launch the policy hears none of the 60 changes the device makes.
    @Test func aTimeChangeWaitsForTheForegroundAndAColdLaunchReadsTheZone() async throws {
        let policy = try inline(
            "tz-heard",
            """
            if ctx.event.name == "significant_time_change" then error("heard") end
            """)
        func run(_ share: String) async throws -> PolicyResult {
            let model = try fixedModel(
                """
                travel: { share: 1, trips_per_month: 30, stay_days: 2, zones: { Asia/Tokyo: 1 } }
                cold_launch_share: \(share)
                """, opens: 0)
            return await Simulation.run(policies: [policy], model: model, options: SimulationOptions(users: 20, days: 6, seed: 5))
                .policies[0]
        }
        // The policy raises an error each time it hears a change: the errors count what it heard.
        let cold = try await run("1")
        #expect(cold.answers.timeZoneChanges == 60)
        #expect(cold.errors.isEmpty, "\(cold.errors)")
        let warm = try await run("0")
        #expect(warm.answers.timeZoneChanges == 60)
        let heard = warm.errors.values.reduce(0, +)
        // Each change is heard at most once, at the next return, and none at a cold launch; so
        // is each night's midnight (docs/platform.md Z-03), coalesced with a trip's change:
        // at most one a day after the first for each of the 20 users.
        #expect(heard > 0 && heard <= 60 + 20 * 5, "\(warm.errors)")
        #expect(warm.firstError?.contains("heard") == true, "\(warm.firstError ?? "no error")")
    }

    @Test func localMidnightFollowsTheZone() {
        let utc = 1_767_571_200.0  // 2026-01-05T00:00:00Z
        #expect(UserSimulation.localMidnight(of: utc, in: TimeZone(identifier: "Asia/Tokyo")!) == utc - 9 * 3600)
        #expect(UserSimulation.localMidnight(of: utc, in: TimeZone(identifier: "America/New_York")!) == utc + 5 * 3600)
    }

    @Test func travelAndEventsAreTheSameWhateverTheWorkerCount() async throws {
        let model = try fixedModel(
            """
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

    /// Users live in the model's home zones: every call of theirs is on their home clock between
    /// 08:00 and 22:00 (a session starts before 22:00 and lasts minutes), across New York's
    /// change to daylight time on 2026-03-08, and never before the run starts (Tokyo's first
    /// day is the next local one). Both zones get users.
    @Test func usersLiveOnTheirHomeZonesClock() async throws {
        let model = try fixedModel(
            """
            start: "2026-03-02T00:00:00Z"
            home_zones: { Asia/Tokyo: 0.5, America/New_York: 0.5 }
            """, sessions: 3)
        let policy = try inline("clock-probe", "return nil")
        let recorded = await RecordedRun.record(
            policy: policy, model: model, options: SimulationOptions(users: 40, days: 14, seed: 4))
        var zones: Set<String> = []
        var afterTheChange: Set<Int> = []
        for call in recorded.calls {
            let local = call.context.localTime
            zones.insert(local.timeZone)
            #expect((8...22).contains(local.hour), "\(local)")
            #expect(call.context.now >= Int64(model.start.timeIntervalSince1970), "\(local)")
            // The run starts at 09:00 in Tokyo: its users' first day is 2026-03-03 there, not
            // what is left of 03-02 squeezed into the hours after the start.
            #expect(!(local.timeZone == "Asia/Tokyo" && local.date == "2026-03-02"), "\(local)")
            if local.timeZone == "America/New_York", local.date >= "2026-03-09" {
                // After the change New York is UTC-4: the same local hours, an hour earlier in UTC.
                afterTheChange.insert(local.hour)
            }
        }
        #expect(zones == ["Asia/Tokyo", "America/New_York"])
        #expect(!afterTheChange.isEmpty, "New York users still have sessions after the change")
        // Without home zones everybody lives on UTC, as before.
        let utc = await RecordedRun.record(
            policy: policy, model: try fixedModel(sessions: 3), options: SimulationOptions(users: 10, days: 3, seed: 4))
        #expect(Set(utc.calls.map(\.context.localTime.timeZone)) == ["UTC"])
    }

    /// Trips come back to the home zone, not to UTC.
    @Test func travellersComeHomeToTheirHomeZone() async throws {
        let model = try fixedModel(
            """
            home_zones: { Europe/Berlin: 1 }
            travel: { share: 1, trips_per_month: 30, stay_days: 2, zones: { Asia/Tokyo: 1 } }
            """)
        let recorded = await RecordedRun.record(
            policy: try inline("zone-probe", "return nil"), model: model,
            options: SimulationOptions(users: 10, days: 8, seed: 2))
        let zones = Set(recorded.calls.map(\.context.localTime.timeZone))
        #expect(zones == ["Europe/Berlin", "Asia/Tokyo"])
    }
}
