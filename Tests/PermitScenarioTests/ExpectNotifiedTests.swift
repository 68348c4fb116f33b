import Foundation
import Testing

@testable import PermitCore
@testable import PermitScenario

/// `expect_notified`: the notifications a step posted (`notify`), each entry's fields checked,
/// a failure naming the entry, its line and the field.
@Suite struct ExpectNotifiedTests {
    static let policy = """
        return { name = "n", decide = function(ctx)
          if ctx.event.name == "background_refresh" then
            return { action = "none", notify = { id = "check", title = "Check", body = "Alerts are off" } }
          end
        end }
        """

    static func scenario(_ expectation: String, authorization: String = "authorized") -> String {
        """
        device: { os: "17.0" }
        initial: { authorization: \(authorization) }
        steps:
          - event: app_launch
            expect_notified: []
          - event: app_background
          - event: background_refresh
            expect_notified: \(expectation)
        """
    }

    @Test func aMatchingListPasses() async throws {
        let text = Self.scenario("[ { id: permit.notify.check, title: Check, body: Alerts are off, delivered: banner, sound: true } ]")
        let result = try await play(text, policy: Self.policy, chunkName: "n.lua")
        #expect(result.steps.flatMap(\.failures).isEmpty, "\(result.steps.flatMap(\.failures))")
    }

    @Test func aWrongFieldNamesTheEntryAndItsLine() async throws {
        let text = Self.scenario("[ { id: permit.notify.check, delivered: banner } ]", authorization: "denied")
        let result = try await play(text, policy: Self.policy, chunkName: "n.lua")
        #expect(result.steps.last?.failures == [#"notification 1 (line 8) delivered: expected "banner", got "none""#])
    }

    @Test func aWrongCountSaysWhatWasPosted() async throws {
        let result = try await play(Self.scenario("[]"), policy: Self.policy, chunkName: "n.lua")
        #expect(result.steps.last?.failures == ["expected 0 notification(s) posted, got 1: permit.notify.check (banner)"])
    }

    @Test func badEntriesAreRefusedWithTheirLine() {
        #expect(parseError(Self.scenario("[ { delivered: loud } ]")).contains("loud"))
        #expect(parseError(Self.scenario("[ { at: \"2026-01-06 09:00\" } ]")).contains("at"))
        #expect(parseError(Self.scenario("[ {} ]")).contains("the notification lists nothing to check"))
        let onSettings =
            "device: { os: \"17.0\" }\nsteps:\n  - event: app_launch\n  - settings: { alert: disabled }\n    expect_notified: []\n"
        #expect(parseError(onSettings).contains("this step sends no event to the policy"))
    }
}
