import Foundation
import PermitTestSupport
import Testing

/// The scenario steps of the world outside Permit (`external_request`, `timezone`,
/// `open_settings_link`, leaving with the dialog up) and `expect_remote_registration`, through
/// `permit test`, `run` and `decide` (in-process): what
/// fails, how it is worded, and the exit code.
@Suite struct WorldStepsCLITests {
    static let askAtLaunch = """
        return { name = "ask", decide = function(ctx)
          if ctx.event.name == "app_launch" and ctx.status == "not_determined" then
            return { action = "request_permission", options = { "alert" } }
          end
          if ctx.event.name == "significant_time_change" then
            return { action = "none", reason = "zone " .. ctx.event.time_zone }
          end
          return nil
        end }
        """

    func run(_ scenario: String) async throws -> ProcessResult {
        let tree = Tree()
        tree.write("ask/policy.lua", Self.askAtLaunch)
        tree.write("ask/tests/story.yaml", scenario)
        return try await CLITests.permit(["test", tree.path("ask")])
    }

    @Test func theSettingsLinkNeedsARequestWithTheOption() async throws {
        let result = try await run(
            """
            device: { os: "16.4" }
            steps:
              - { event: app_launch, expect_dialog: true }
              - answer: allow
              - open_settings_link: true
            """)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Settings shows no link to the app's notification settings"), "\(result.stdout)")
    }

    @Test func afterHomeDeniedTheDialogIsGone() async throws {
        let result = try await run(
            """
            device: { os: "16.4" }
            steps:
              - { event: app_launch, expect_dialog: true }
              - { event: app_background, expect_status: denied, expect_remote_registration: false }
              - answer: allow
            """)
        #expect(result.status == 1)
        #expect(result.stdout.contains("there is nothing on screen to answer with allow"), "\(result.stdout)")
        // Kept instead, the dialog waits for the return and may be answered then.
        let stays = try await run(
            """
            device: { os: "16.4", dialog_on_background: stays }
            steps:
              - { event: app_launch, expect_dialog: true }
              - event: app_background
              - { event: feature_opened, feature: x }
            """)
        #expect(stays.status == 1)
        #expect(stays.stdout.contains("the system dialog is on screen and stays until answered"), "\(stays.stdout)")
    }

    @Test func aRemoteRegistrationExpectationFailsWhenNotToldTo() async throws {
        let result = try await run(
            """
            device: { os: "16.4" }
            steps:
              - { event: app_launch, expect_dialog: true }
              - { answer: deny, expect_remote_registration: true }
            """)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "expected the host to be told to register for remote notifications; it was told neither to register nor to unregister"),
            "\(result.stdout)")
    }

    @Test func theTimeZoneStepSendsTheEventWithTheZone() async throws {
        let pass = try await run(
            """
            device: { os: "16.4", timezone: Asia/Taipei }
            steps:
              - { event: app_launch, expect_dialog: true }
              - answer: allow
              - { timezone: America/New_York, expect: { action: none, reason: "zone America/New_York" } }
            """)
        #expect(pass.status == 0, "\(pass.stdout)")
    }

    @Test func mistakesNameTheLineAndTheChoices() async throws {
        let badAnswer = try await run("device: { os: \"16.4\" }\nsteps:\n  - { external_request: maybe }\n")
        #expect(badAnswer.status == 2)
        #expect((badAnswer.stdout + badAnswer.stderr).contains("story.yaml:3:"), "\(badAnswer.stdout)")
        #expect((badAnswer.stdout + badAnswer.stderr).contains("allow") && (badAnswer.stdout + badAnswer.stderr).contains("deny"))
        let badZone = try await run("device: { os: \"16.4\" }\nsteps:\n  - { timezone: Mars/Olympus }\n")
        #expect(badZone.status == 2)
        #expect((badZone.stdout + badZone.stderr).contains("unknown time zone \"Mars/Olympus\""), "\(badZone.stdout)")
        let noDecision = try await run(
            "device: { os: \"16.4\" }\nsteps:\n  - { external_request: allow, expect_remote_registration: true }\n")
        #expect(noDecision.status == 2)
        #expect((noDecision.stdout + noDecision.stderr).contains("this step sends no event to the policy"), "\(noDecision.stdout)")
        let badOverflow = try await run("device: { os: \"16.4\", pending_overflow: latest }\nsteps:\n  - { event: app_launch }\n")
        #expect(badOverflow.status == 2)
        #expect(
            (badOverflow.stdout + badOverflow.stderr).contains("soonest") && (badOverflow.stdout + badOverflow.stderr).contains("newest"),
            "\(badOverflow.stdout)")
        let sent = try await run("device: { os: \"16.4\" }\nsteps:\n  - { event: significant_time_change }\n")
        #expect(sent.status == 2)
        #expect((sent.stdout + sent.stderr).contains("write `timezone: Europe/Berlin`"), "\(sent.stdout)")
    }

    /// `permit run --format json` says when the host registers for remote notifications, and
    /// each reminder's interruption level as iOS delivers it.
    @Test func theJSONTimelineCarriesRegistrationAndLevels() async throws {
        let tree = Tree()
        tree.write(
            "levels.lua",
            """
            return { name = "levels", decide = function(ctx) return nil end,
              plan_reminders = function(ctx) return { { day = 1, body = "x", interruption_level = "time_sensitive" } } end }
            """)
        tree.write(
            "story.yaml",
            "device: { os: \"16.4\", entitlements: [time_sensitive] }\ninitial: { authorization: authorized }\nsteps:\n  - event: app_launch\n  - { event: feature_opened, feature: x }\n"
        )
        let run = try await CLITests.permit(["run", tree.path("levels.lua"), tree.path("story.yaml"), "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let scenarios = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        let steps = try #require(scenarios.first?["steps"] as? [[String: Any]])
        #expect(steps.map { $0["register_for_remote_notifications"] as? Bool } == [true, false])
        let reminder = try #require((steps[0]["reminders_scheduled"] as? [[String: Any]])?.first)
        #expect(reminder["interruption_level"] as? String == "time_sensitive")
    }

    @Test func decideTakesTheNewEventsZoneFromTimezone() async throws {
        let tree = Tree()
        tree.write("ask/policy.lua", Self.askAtLaunch)
        let decide = try await CLITests.permit([
            "decide", tree.path("ask"), "--status", "authorized", "--event", "significant_time_change",
            "--timezone", "Asia/Tokyo", "--format", "json",
        ])
        #expect(decide.status == 0, "\(decide.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(decide.stdout.utf8)) as? [String: Any]
        #expect((object?["decision"] as? [String: Any])?["reason"] as? String == "zone Asia/Tokyo", "\(decide.stdout)")
        let opened = try await CLITests.permit([
            "decide", tree.path("ask"), "--status", "authorized", "--event", "notification_settings_opened",
        ])
        #expect(opened.status == 0, "\(opened.stderr)")
    }
}
