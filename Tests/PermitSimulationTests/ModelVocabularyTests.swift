import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// The model's event vocabulary beyond per-session counts: lifecycle events (once after the
/// N-th session, once per day), properties drawn per send, events that follow another event or
/// a feature's opening, and the warning for a model name no policy knows.
@Suite("Model event vocabulary")
struct ModelVocabularyTests {
    /// A policy that declares `events` and does nothing: the run counts what it was sent.
    static func listener(_ events: [String], name: String = "listener", body: String = "") throws -> SimulationPolicy {
        let list = events.map { "\"\($0)\"" }.joined(separator: ", ")
        return try SimulationPolicy(
            source: "return { name = \"\(name)\", events = { \(list) }, decide = function(ctx)\n\(body)\nend }",
            chunkName: "\(name).lua")
    }

    static func sent(
        _ extra: String, sessions: Int = 1, opens: Int = 0, users: Int, days: Int, policy: SimulationPolicy
    ) async throws
        -> PolicyResult
    {
        let model = try fixedModel(extra, sessions: sessions, opens: opens)
        let result = await Simulation.run(policies: [policy], model: model, options: SimulationOptions(users: users, days: days, seed: 7))
        #expect(result.policies[0].errors.isEmpty, "\(result.policies[0].firstError ?? "")")
        return result.policies[0]
    }

    /// Sent in the second session (day 2 with one session a day), once, and never again.
    @Test func onceAfterSessionIsSentOnceInThatSession() async throws {
        let policy = try Self.listener(
            ["signed_in"],
            body: """
                if ctx.event.name == "signed_in" and ctx.local_time.date ~= "2026-01-06" then error("sent on " .. ctx.local_time.date) end
                if ctx.event.name == "signed_in" and ctx.history.events.signed_in.count > 1 then error("sent twice") end
                """)
        let week = try await Self.sent("events: { signed_in: { once_after_session: 2 } }", users: 100, days: 7, policy: policy)
        #expect(week.answers.appEvents["signed_in"] == 100)
        let firstDay = try await Self.sent("events: { signed_in: { once_after_session: 2 } }", users: 100, days: 1, policy: policy)
        #expect(firstDay.answers.appEvents["signed_in"] == nil)
    }

    /// In the day's first session only, with the chance: 200 users × 10 days × 0.5 = 1,000
    /// (sd ≈ 22), where a per-session draw in 3 sessions a day would give about 3,000.
    @Test func oncePerDayIsDrawnInTheDaysFirstSession() async throws {
        let policy = try Self.listener(["daily_goal"])
        let result = try await Self.sent(
            "events: { daily_goal: { once_per_day: 0.5 } }", sessions: 3, users: 200, days: 10, policy: policy)
        let count = try #require(result.answers.appEvents["daily_goal"])
        #expect((1_000 - 100...1_000 + 100).contains(count), "\(count)")
    }

    /// `plan` drawn 80/20 and `items` Poisson(2) on every send, `source` fixed.
    @Test func propertiesAreDrawnForEverySend() async throws {
        let model = try fixedModel(
            """
            events: { purchase: { per_session: 1, properties: { plan: { weighted: { free: 0.8, pro: 0.2 } }, items: { poisson: 2 }, source: shop } } }
            """, opens: 0)
        let recorded = await RecordedRun.record(
            policy: try Self.listener(["purchase"]), model: model, options: SimulationOptions(users: 100, days: 10, seed: 3))
        var plans: [String: Int] = [:]
        var items = 0
        var sends = 0
        for call in recorded.calls {
            guard case .custom(let event) = call.context.event else { continue }
            sends += 1
            if case .string(let plan)? = event.properties["plan"] { plans[plan, default: 0] += 1 }
            if case .integer(let count)? = event.properties["items"] { items += Int(count) }
            #expect(event.properties["source"] == .string("shop"))
        }
        // 1,000 sends: pro ≈ 200 (sd ≈ 13), items ≈ 2,000 (sd ≈ 45).
        #expect(sends == 1_000)
        #expect(plans["free", default: 0] + plans["pro", default: 0] == sends)
        #expect((200 - 55...200 + 55).contains(plans["pro", default: 0]), "\(plans)")
        #expect((2_000 - 180...2_000 + 180).contains(items), "\(items)")
    }

    /// `checkout_done` right after 40% of the `checkout_started`s (500 of them: 200, sd ≈ 11), never
    /// on its own; and to a policy that declares only `checkout_done` as well (the user still
    /// starts checkouts, the policy does not hear them).
    @Test func aFollowerComesRightAfterItsLeaderWithItsChance() async throws {
        let model = try fixedModel(
            """
            events:
              checkout_started: { per_session: 1 }
              checkout_done: { follows: checkout_started, chance: 0.4 }
              reminder_set: { follows: reminders, chance: 0.5 }
            """, opens: 1)
        let options = SimulationOptions(users: 50, days: 10, seed: 11)
        let recorded = await RecordedRun.record(
            policy: try Self.listener(["checkout_started", "checkout_done", "reminder_set"]), model: model, options: options)
        let names = recorded.calls.filter { $0.function == .decide }.map { call -> String in
            call.context.event.feature.map { "open:\($0)" } ?? call.context.event.name
        }
        var started = 0, done = 0, reminders = 0
        for (index, name) in names.enumerated() {
            if name == "checkout_started" { started += 1 }
            if name == "checkout_done" {
                done += 1
                #expect(names[index - 1] == "checkout_started")
            }
            if name == "reminder_set" {
                reminders += 1
                #expect(names[index - 1] == "open:reminders")
            }
        }
        #expect(started == 500)
        #expect((200 - 45...200 + 45).contains(done), "\(done)")
        #expect((250 - 50...250 + 50).contains(reminders), "\(reminders)")

        let onlyDone = await Simulation.run(
            policies: [try Self.listener(["checkout_done"])], model: model, options: options)
        let heard = onlyDone.policies[0].answers.appEvents
        #expect(heard["checkout_started"] == nil)
        #expect((200 - 45...200 + 45).contains(heard["checkout_done"] ?? 0), "\(heard)")
    }

    @Test func badTimingsNameFileLineAndField() throws {
        let cases: [(String, Int, String)] = [
            (
                "events: { signed_in: { once_after_session: 2, per_session: 1 } }", 13,
                "\"per_session\" and \"once_after_session\" both given"
            ),
            ("events: { signed_in: { properties: { plan: pro } } }", 13, "missing when the event is sent"),
            ("events: { signed_in: { once_per_day: 0.7, chance: 0.5 } }", 13, "\"chance\" goes with \"follows\""),
            ("events: { signed_in: { once_after_session: 0 } }", 13, "events.signed_in.once_after_session"),
            ("events: { daily: { once_per_day: 1.7 } }", 13, "out of range"),
            (
                "events: { started: { per_session: 1 }, done: { follows: startd, chance: 0.4 } }", 13,
                "did you mean \"started\"?"
            ),
            ("events: { a: { follows: b }, b: { follows: a } }", 13, "follow each other in a circle"),
            (
                "events: { buy: { per_session: 1, properties: { plan: { weighted: { free: 0.8, pro: 0.1 } } } } }", 13,
                "the shares add up to 0.900, not 1"
            ),
            (
                "events: { buy: { per_session: 1, properties: { plan: { wieghted: { free: 1 } } } } }", 13,
                "did you mean \"weighted\""
            ),
            ("events: [ { per_session: 1 } ]", 13, "missing \"name\""),
            ("events: [ { name: a, per_session: 1 }, { name: a, once_per_day: 0.5 } ]", 13, "\"a\" is listed twice"),
            ("events: [ { name: SignedIn, once_after_session: 2 } ]", 13, "events[1].name: \"SignedIn\" is not an event name"),
        ]
        for (line, number, expected) in cases {
            let error = try #require(modelError(validModel + "\n" + line), "\(line)")
            #expect(error.location?.file == "models/bad.yaml")
            #expect(error.location?.line == number, "\(error)")
            #expect(error.description.contains(expected), "\(error)")
        }
        // A follower may follow a feature of the model.
        let model = try UserModel.parse(validModel + "\nevents: { set: { follows: reminders, chance: 0.5 } }", file: "m.yaml")
        #expect(model.appEvents[0].timing == .follows("reminders", chance: 0.5))
        // The list form reads the same as the table form.
        let listed = try UserModel.parse(
            validModel + "\nevents:\n  - { name: signed_in, once_after_session: 2 }\n  - { name: set, follows: signed_in, chance: 0.4 }",
            file: "m.yaml")
        #expect(listed.appEvents.map(\.name) == ["signed_in", "set"])
        #expect(listed.appEvents.map(\.timing) == [.onceAfterSession(2), .follows("signed_in", chance: 0.4)])
    }

    /// A misspelt feature gives no prompt: the model warns, naming the policies' closest name.
    @Test func aModelNameNoPolicyKnowsIsWarnedWithASuggestion() async throws {
        let model = try fixedModel("events: { lesson_complete: { per_session: 1 } }").with(features: ["remindrs"])
        let result = await Simulation.run(
            policies: [try pack("polite"), try ModelActivityTests.lessonPolicy()], model: model,
            options: SimulationOptions(users: 20, days: 2, seed: 1))
        let messages = result.warnings.map(\.description)
        #expect(
            messages.contains {
                $0.hasPrefix(
                    "model \"test-model\": opens feature \"remindrs\" (did you mean \"reminders\"?) that no policy in this run names")
            }, "\(messages)")
        #expect(
            messages.contains {
                $0.hasPrefix(
                    "model \"test-model\": sends event \"lesson_complete\" (test-model.yaml:9); did you mean \"lesson_completed\"?")
            }, "\(messages)")
        #expect(result.text().contains("warning: model \"test-model\": opens feature \"remindrs\""))
        #expect(result.json().contains("did you mean \\\"reminders\\\"?"))
        // Named correctly, no warning about the model's names (a section the model leaves out
        // is warned about on its own, whatever the names).
        let fine = await Simulation.run(
            policies: [try pack("polite")], model: try fixedModel(), options: SimulationOptions(users: 20, days: 2, seed: 1))
        let naming = fine.warnings.filter {
            $0.policy.hasPrefix("model ") && ($0.message.hasPrefix("opens feature") || $0.message.hasPrefix("sends event"))
        }
        #expect(naming.isEmpty, "\(fine.warnings)")
    }
}
