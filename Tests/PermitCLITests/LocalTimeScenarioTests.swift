import Foundation
import PermitTestSupport
import Testing

/// `ctx.local_time` and `permit.within_hours` end to end: a pack whose policy keeps quiet hours
/// (22:00–07:59 local) runs through `permit test` on a device in Santiago on the night Chile
/// springs forward at midnight, so the hour after 23:59 on Saturday is 01:00 on Sunday.
@Suite struct LocalTimeScenarioTests {
    static let policy = """
        return {
          name = "quiet-hours",
          decide = function(ctx)
            if ctx.event.name ~= "feature_opened" then return nil end
            local now = ctx.local_time
            local seen = { seen_date = now.date, seen_hour = now.hour, seen_minute = now.minute,
                           seen_weekday = now.weekday, seen_zone = now.timezone }
            -- Never after 22:00 local:
            if permit.within_hours(ctx, 22, 8) then return { action = "none", reason = "quiet hours", remember = seen } end
            return { action = "soft_prompt", title = { en = "Reminders?" }, message = { en = "Stay on track." },
                     accept = { en = "Yes" }, decline = { en = "No" }, remember = seen }
          end,
        }
        """

    static let scenario = """
        name: quiet hours across Santiago's missing midnight
        device: { os: "16.4", locale: en, timezone: America/Santiago }
        start: "2026-09-06T03:30:00Z"
        steps:
          - { event: app_launch, expect: none }
          # 23:30 on Saturday the 5th (-04): quiet.
          - { event: feature_opened, feature: lessons, expect: none,
              expect_ledger: { state.seen_date: "2026-09-05", state.seen_hour: 23, state.seen_minute: 30, state.seen_weekday: 6 } }
          # 31 minutes later it is 01:01 on Sunday the 6th (-03): 00:xx never happened, still quiet.
          - { after: 31m, event: feature_opened, feature: lessons, expect: none,
              expect_ledger: { state.seen_date: "2026-09-06", state.seen_hour: 1, state.seen_minute: 1, state.seen_weekday: 7, state.seen_zone: America/Santiago } }
          # 07:59 local is the last quiet minute; 08:00 is not quiet.
          - { after: 6h58m, event: feature_opened, feature: lessons, expect: none, expect_ledger: { state.seen_hour: 7, state.seen_minute: 59 } }
          - { after: 1m, event: feature_opened, feature: lessons, expect: soft_prompt, expect_ledger: { state.seen_hour: 8, state.seen_minute: 0 } }
          - { answer: decline }
        """

    @Test func quietHoursFollowTheDevicesClockThroughTheCLI() async throws {
        let tree = Tree()
        tree.write("quiet/policy.lua", Self.policy)
        tree.write("quiet/tests/santiago.yaml", Self.scenario)
        let run = try await CLITests.permit(["test", tree.path("quiet"), "--format", "json"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect((object?["passed"] as? Int) == 1)
        #expect((object?["failed"] as? Int) == 0)
    }

    /// The same scenario in UTC sees other hours: the expectations are about the device's zone.
    @Test func theSameStepsInUTCFail() async throws {
        let tree = Tree()
        tree.write("quiet/policy.lua", Self.policy)
        tree.write("quiet/tests/utc.yaml", Self.scenario.replacingOccurrences(of: "America/Santiago }", with: "UTC }"))
        let run = try await CLITests.permit(["test", tree.path("quiet"), "--format", "json"])
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
    }
}
