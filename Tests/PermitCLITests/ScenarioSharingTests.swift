import Foundation
import PermitTestSupport
import Testing

@testable import PermitScenario

/// Writing a story once: YAML merge keys, `include:` steps files, and the expectations that
/// match texts (`reason`, `expect_error`, `expect_trace`) and reminders one by one; through the
/// `permit test` report, run in-process (`CLITests.permit`).
@Suite struct ScenarioSharingTests {
    /// A policy that logs, and decides nothing.
    static let loggingPolicy = """
        return {
          name = "logging",
          decide = function(ctx)
            permit.log("event " .. ctx.event.name)
            permit.log("bucket " .. ctx.user.bucket)
            return { action = "none", reason = "nothing to do on " .. ctx.event.name }
          end,
        }
        """

    static func pack(policy: String, _ files: [String: String]) -> Tree {
        let tree = Tree()
        tree.write("p/policy.lua", policy)
        for (name, text) in files { tree.write("p/\(name)", text) }
        return tree
    }

    @Test func mergeKeysAndAnchorsShareStepsWithinAFile() async throws {
        let tree = Self.pack(
            policy: Self.loggingPolicy,
            [
                "tests/a.yaml": """
                anchors:
                  launch: &launch { event: app_launch, expect: { action: none, reason: nothing to do } }
                device: { os: "16.4" }
                steps:
                  - *launch
                  - { <<: *launch, after: 1d }
                  - { <<: *launch, after: 1d, expect_status: authorized }
                """
            ])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("step 3 (line 7) +2d00h app_launch"), "\(run.stdout)")
        #expect(run.stdout.contains("✗ expected status authorized, got not_determined"))
        #expect(run.stdout.hasSuffix("0 passed, 1 failed, 0 skipped\n"))
    }

    @Test func includedStepsRunInPlaceAndNameTheirFile() async throws {
        let tree = Self.pack(
            policy: Self.loggingPolicy,
            [
                "tests/common/launch.steps.yaml":
                    "steps:\n  - event: app_launch\n  - { after: 1h, event: app_background, expect_status: authorized }\n",
                "tests/a.yaml": "device: { os: \"16.4\" }\nsteps:\n  - include: common/launch.steps.yaml\n  - event: app_foreground\n",
            ])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("a (3 steps)"), "the include brought two steps; the steps file is not a scenario")
        #expect(run.stdout.contains("step 2 (\(tree.path("p/tests/common/launch.steps.yaml")):3) +1h00m app_background"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("0 passed, 1 failed, 0 skipped\n"))

        // The machine-readable reports name the included file too, not a bare line of it.
        let json = try await CLITests.permit(["test", tree.path(), "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let scenarios = try #require(object["scenarios"] as? [[String: Any]], "\(json.stdout)")
        let steps = try #require(scenarios.first?["steps"] as? [[String: Any]])
        #expect(
            steps.map { $0["file"] as? String } == [
                tree.path("p/tests/common/launch.steps.yaml"), tree.path("p/tests/common/launch.steps.yaml"), tree.path("p/tests/a.yaml"),
            ])
        #expect(steps.map { $0["line"] as? Int } == [2, 3, 4])
        let junit = try await CLITests.permit(["test", tree.path(), "--format", "junit"])
        #expect(junit.stdout.contains("step 2 (\(tree.path("p/tests/common/launch.steps.yaml")):3): "), "\(junit.stdout)")
    }

    @Test func aMistakeInAnIncludedFileNamesItAndTheIncludingLine() async throws {
        let tree = Self.pack(
            policy: Self.loggingPolicy,
            [
                "tests/common/launch.steps.yaml": "steps:\n  - event: app_launch\n  - { after: 1x, event: app_background }\n",
                "tests/a.yaml": "device: { os: \"16.4\" }\nsteps:\n  - event: app_foreground\n  - include: common/launch.steps.yaml\n",
                "tests/b.yaml": "device: { os: \"16.4\" }\nsteps:\n  - { include: common/missing.yaml }\n",
                "tests/c.yaml": "device: { os: \"16.4\" }\nsteps:\n  - { include: common/launch.steps.yaml, after: 1d }\n",
            ])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 2)
        #expect(
            run.stdout.contains(
                "launch.steps.yaml:3:14: steps[2].after: \"1x\" is not a duration "
                    + "(in the steps included at \(tree.path("p/tests/a.yaml")):4)"), "\(run.stdout)")
        #expect(run.stdout.contains("b.yaml:3:16: steps[1].include: no steps file at \(tree.path("p/tests/common/missing.yaml"))"))
        #expect(run.stdout.contains("c.yaml:3:5: steps[1]: an include step only includes"))
    }

    @Test func reasonAndErrorsMatchByPieceOrPattern() async throws {
        let tree = Self.pack(
            policy: Self.loggingPolicy,
            [
                "tests/a.yaml": """
                device: { os: "16.4" }
                steps:
                  - { event: app_launch, expect: { reason: "to do on app_launch" } }
                  - { event: app_foreground, expect: { action: none, reason: "/^nothing .* app_fore/" } }
                  - { event: app_foreground, expect: { reason: "/launch$/" } }
                """
            ])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 1)
        #expect(run.stdout.contains("step 3 (line 5)"), "\(run.stdout)")
        #expect(!run.stdout.contains("step 2 (line 4)"))
        #expect(run.stdout.contains("✗ decision.reason: expected matching /launch$/, got \"nothing to do on app_foreground\""))

        tree.write("p/tests/a.yaml", "device: { os: \"16.4\" }\nsteps:\n  - { event: app_launch, expect: { reason: \"/(unclosed/\" } }\n")
        let bad = try await CLITests.permit(["test", tree.path()])
        #expect(bad.status == 2)
        #expect(bad.stdout.contains("a.yaml:3:44: steps[1].expect.reason: /(unclosed/ is not a valid pattern"), "\(bad.stdout)")
    }

    @Test func expectTraceMatchesLoggedLinesInOrder() async throws {
        let tree = Self.pack(
            policy: Self.loggingPolicy,
            [
                "tests/a.yaml": """
                device: { os: "16.4" }
                user: { bucket: 42 }
                steps:
                  - { event: app_launch, expect_trace: ["event app_launch", "/^bucket \\\\d+$/"] }
                  - { event: app_foreground, expect_trace: "bucket 42" }
                  - { event: app_foreground, expect_trace: ["bucket 42", "event app_foreground"] }
                  - { event: app_foreground, expect_trace: [] }
                """
            ])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 1)
        #expect(!run.stdout.contains("step 1 (") && !run.stdout.contains("step 2 ("), "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "✗ expected a trace line containing \"event app_foreground\" after the entries before it, "
                    + "the policy logged \"event app_foreground\", \"bucket 42\""))
        #expect(
            run.stdout.contains(
                "✗ expected the policy to log nothing, it logged \"event app_foreground\", \"bucket 42\""))
    }

    /// The reminders pack: nine reminders at 9:00, 14:00 and 20:00 for three days.
    @Test func remindersListedOneByOne() async throws {
        let policy = try String(
            contentsOf: CLITests.repository.appendingPathComponent("policies/reminders/policy.lua"), encoding: .utf8)
        func scenario(_ reminders: String) -> String {
            """
            device: { os: "16.4", locale: zh-Hans, timezone: Asia/Taipei }
            start: "2026-01-05T10:00:00Z"
            steps:
              - { event: app_launch, expect: soft_prompt }
              - { answer: accept, expect_dialog: true }
              - answer: allow
              - { after: 1d, event: app_launch, expect_reminders: \(reminders) }
            """
        }
        // 18:00 in Taipei on launch day; the next day's launch at 18:00 adds the third day's three.
        let tree = Self.pack(
            policy: policy,
            [
                "tests/a.yaml": scenario(
                    """
                    [
                          { at: "2026-01-08 09:00", title: 你现在感觉怎么样？, body: 今天记录心情了吗？, alert: true },
                          { at: "2026-01-08 14:00" }, { at: "2026-01-08 20:00", alert: true } ]
                    """)
            ])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")

        tree.write(
            "p/tests/a.yaml", scenario("[ { at: \"2026-01-08 09:00\", title: Hi, alert: false }, { at: \"2026-01-08 15:00\" }, {} ]"))
        let wrong = try await CLITests.permit(["test", tree.path()])
        #expect(wrong.status == 2)
        #expect(wrong.stdout.contains("the reminder lists nothing to check"), "\(wrong.stdout)")

        tree.write(
            "p/tests/a.yaml", scenario("[ { at: \"2026-01-08 09:00\", title: Hi, alert: false }, { at: \"2026-01-08 15:00\" }, { id: x } ]")
        )
        let failed = try await CLITests.permit(["test", tree.path()])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("✗ reminder 1 (line 7) title: expected \"Hi\", got \"你现在感觉怎么样？\""), "\(failed.stdout)")
        #expect(failed.stdout.contains("✗ reminder 1 (line 7): expected badge and sound only, got an alert"))
        #expect(failed.stdout.contains("✗ reminder 2 (line 7) at: expected \"2026-01-08 15:00\", got \"2026-01-08 14:00\""))

        tree.write("p/tests/a.yaml", scenario("[ { at: \"2026-01-08 09:00\" } ]"))
        let count = try await CLITests.permit(["test", tree.path()])
        #expect(
            count.stdout.contains("✗ expected 1 reminder(s) scheduled, got 3 (at 2026-01-08 09:00, 2026-01-08 14:00, 2026-01-08 20:00)"),
            "\(count.stdout)")
    }
}
