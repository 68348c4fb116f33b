import Foundation
import PermitTestSupport
import Testing

/// Events of the app's own through the CLI: scenario steps with `properties:`, the ledger's
/// counts in `expect_ledger`, a misspelt event, and `permit decide --event ... --property`.
@Suite struct AppEventCLITests {
    static let policy = """
        return {
          name = "lessons",
          events = { "lesson_completed", "streak_opened" },
          decide = function(ctx)
            if ctx.event.name == "lesson_completed" and ctx.history.events.lesson_completed.count >= 2 then
              return { action = "soft_prompt", reason = "lesson " .. tostring(ctx.event.properties.course),
                title = "Keep your streak", message = "We remind you at 19:00.", accept = "OK", decline = "No" }
            end
            return { action = "none" }
          end,
        }
        """

    static func tree(scenario: String) -> Tree {
        let tree = Tree()
        tree.write("lessons/policy.lua", policy)
        tree.write("lessons/tests/case.yaml", scenario)
        return tree
    }

    @Test func aScenarioSendsAppEventsWithPropertiesAndChecksTheirCounts() async throws {
        let tree = Self.tree(
            scenario: """
                device: { os: "17.0" }
                steps:
                  - { event: app_launch }
                  - { event: lesson_completed, properties: { course: verbs }, expect: none }
                  - event: lesson_completed
                    properties: { course: nouns, minutes: 12, perfect: true }
                    expect: { action: soft_prompt, reason: lesson nouns }
                    expect_ledger: { events.lesson_completed.count: 2, events.streak_opened.count: null }
                """)
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"), "\(run.stdout)")
    }

    @Test func aMisspeltEventIsAnErrorAtItsLineWithASuggestion() async throws {
        let tree = Self.tree(
            scenario: """
                device: { os: "17.0" }
                steps:
                  - { event: app_launch }
                  - { event: lesson_complete }
                """)
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        let output = run.stdout + run.stderr
        #expect(output.contains("case.yaml:4:"), "\(output)")
        #expect(output.contains("the policy does not declare the event \"lesson_complete\""), "\(output)")
        #expect(output.contains("did you mean \"lesson_completed\"?"), "\(output)")
        // A misspelt built-in event reads like an app event of its own: the same check names it.
        let builtIn = Self.tree(scenario: "device: { os: \"17.0\" }\nsteps:\n  - { event: app_lunch }\n")
        let second = try await CLITests.permit(["test", builtIn.path()])
        #expect(second.status == 2)
        #expect((second.stdout + second.stderr).contains("did you mean \"app_launch\"?"), "\(second.stdout)\(second.stderr)")
    }

    @Test func propertiesAreCheckedWhereTheyAreWritten() async throws {
        let nested = Self.tree(
            scenario: """
                device: { os: "17.0" }
                steps:
                  - { event: lesson_completed, properties: { course: [a, b] } }
                """)
        let run = try await CLITests.permit(["test", nested.path()])
        #expect(run.status == 2)
        #expect((run.stdout + run.stderr).contains("case.yaml:3:"), "\(run.stdout)\(run.stderr)")
        #expect(
            (run.stdout + run.stderr).contains("property course is a table; a property is a string, number or boolean"),
            "\(run.stdout)\(run.stderr)")
        let builtIn = Self.tree(
            scenario: """
                device: { os: "17.0" }
                steps:
                  - { event: app_launch, properties: { a: 1 } }
                """)
        let second = try await CLITests.permit(["test", builtIn.path()])
        #expect(second.status == 2)
        #expect((second.stdout + second.stderr).contains("app_launch takes no properties"), "\(second.stdout)\(second.stderr)")
    }

    @Test func decideTakesAnAppEventWithProperties() async throws {
        let tree = Self.tree(scenario: "device: { os: \"17.0\" }\nsteps: [{ event: app_launch }]\n")
        tree.write("ledger.json", #"{"schema":1,"ledger":{"events":{"lesson_completed":{"count":1}}}}"#)
        let run = try await CLITests.permit([
            "decide", tree.path("lessons"), "--status", "not_determined", "--event", "lesson_completed",
            "--property", "course=verbs", "--history", tree.path("ledger.json"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("soft_prompt"), "\(run.stdout)")
        #expect(run.stdout.contains("lesson verbs"), "\(run.stdout)")

        let typo = try await CLITests.permit([
            "decide", tree.path("lessons"), "--status", "not_determined", "--event", "lesson_complete",
        ])
        #expect(typo.status == 2)
        #expect(
            typo.stderr.contains("--event: the policy does not declare \"lesson_complete\"; did you mean \"lesson_completed\"?"),
            "\(typo.stderr)")
        let onBuiltIn = try await CLITests.permit([
            "decide", tree.path("lessons"), "--status", "not_determined", "--event", "app_launch", "--property", "a=1",
        ])
        #expect(onBuiltIn.status == 2)
        #expect(onBuiltIn.stderr.contains("--properties does not go with --event app_launch"), "\(onBuiltIn.stderr)")
    }
}
