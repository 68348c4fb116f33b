import Foundation
import Testing

@testable import PermitCore

/// Decision records: every key always present, the stream and the callback a host logs from.
@Suite struct DecisionRecordTests {
    private func object(_ record: DecisionRecord) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(record.jsonLine.utf8)) as? [String: Any])
    }

    @Test func everyKeyIsWrittenAlwaysWithNullForNoValue() async throws {
        let world = World(policy: always(.softPrompt(softPrompt)))
        let outcome = await world.engine.handle(.featureOpened("diary"))
        let fields = try object(outcome.record)
        #expect(Set(fields.keys) == Set(DecisionRecord.fieldNames))
        #expect(fields["schema"] as? Int == 1)
        let policy = try #require(fields["policy"] as? [String: Any])
        #expect(Set(policy.keys) == Set(DecisionRecord.policyFieldNames))
        #expect(policy["name"] as? String == "always-soft_prompt")
        #expect(policy["version"] is NSNull)
        #expect(fields["follow_up"] is NSNull)
        #expect((fields["event"] as? [String: String]) == ["name": "feature_opened", "feature": "diary"])
        #expect((fields["decision"] as? [String: Any])?["action"] as? String == "soft_prompt")
        #expect(fields["proposed_action"] as? String == "soft_prompt")
        #expect(fields["status_before"] as? String == "unknown")
        #expect(fields["status_after"] as? String == "not_determined")
        #expect((fields["arms"] as? [String: String]) == [:])
    }

    @Test func warningsAndErrorsCarryTheirDocumentedKeys() async throws {
        // A request in the background is voided by a guardrail; a failing policy records its error.
        let world = World(policy: always(.requestPermission(options: [.alert])))
        _ = await world.engine.handle(.appBackground)
        let voided = try object(await world.engine.handle(.featureOpened("x")).record)
        let warning = try #require((voided["warnings"] as? [[String: Any]])?.first)
        #expect(Set(warning.keys) == Set(DecisionRecord.warningFieldNames))

        let failing = World(
            policy: ClosurePolicy(name: "failing") { _ throws(PolicyError) in
                throw PolicyError(kind: .runtime, message: "boom", file: "p.lua", line: 3)
            })
        let failed = try object(await failing.engine.handle(.appLaunch).record)
        let error = try #require((failed["errors"] as? [[String: Any]])?.first)
        #expect(Set(error.keys) == Set(DecisionRecord.errorFieldNames))
        #expect(error["line"] as? Int == 3)
        #expect(error["field"] is NSNull)
        #expect(failed["proposed_action"] is NSNull)
    }

    /// The reminder changes of an event: scheduled with the documented keys, removed by id.
    @Test func reminderChangesAreRecorded() async throws {
        let wanted = Locked([
            ReminderRequest(day: 1, hour: 9, title: "T", body: "a", id: "a"), ReminderRequest(day: 2, hour: 9, body: "b", id: "b"),
        ])
        let world = World(authorization: .authorized, policy: ClosurePolicy(decide: { _ in nil }, planReminders: { _ in wanted.current }))
        let first = try object(await world.engine.handle(.appLaunch).record)
        let scheduled = try #require(first["reminders_scheduled"] as? [[String: Any]])
        #expect(scheduled.map { $0["id"] as? String } == ["permit.a", "permit.b"])
        #expect(Set(scheduled[0].keys) == Set(DecisionRecord.reminderFieldNames))
        #expect(scheduled[1]["title"] is NSNull)
        wanted.withLock { $0 = [$0[0]] }
        let second = try object(await world.engine.handle(.appForeground).record)
        #expect((second["reminders_removed"] as? [String]) == ["permit.b"])
        #expect((second["reminders_scheduled"] as? [Any])?.isEmpty == true)
    }

    @Test func theStreamAndTheCallbackGetEveryRecordInOrder() async throws {
        let world = World(policy: always(.none))
        let stream = world.engine.decisionRecords
        let seen = Locked<[String]>([])
        world.engine.onDecisionRecord { record in seen.withLock { $0.append(record.event["name"]?.description ?? "") } }
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.featureOpened("diary"))
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.event["name"] == .string("app_launch"))
        #expect(second?.event["name"] == .string("feature_opened"))
        #expect(seen.current.count == 2)
    }
}
