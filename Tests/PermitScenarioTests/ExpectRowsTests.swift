import Foundation
import PermitCore
import Testing

@testable import PermitScenario

/// `expect: { rows: [...] }`: a scenario holds a status list to its rows, in order, in the
/// device's language, and a wrong one is named by its place and field.
@Suite struct ExpectRowsTests {
    static let policy = """
        return { name = "rows", decide = function(ctx)
          if ctx.event.name ~= "feature_opened" then return nil end
          local on = ctx.settings.time_sensitive ~= "disabled"
          return { action = "settings_prompt", presentation = "inline", title = "Alert Permissions", message = "Keep these on.",
                   rows = { { name = { en = "Notifications", de = "Mitteilungen" }, value = { en = "On", de = "An" } },
                            { name = "Time Sensitive", value = on and "On" or "Off" } } }
        end }
        """

    static func scenario(rows: String, locale: String = "en") -> String {
        """
        name: rows
        device: { os: "17.2", locale: \(locale), entitlements: [time_sensitive] }
        initial: { authorization: authorized }
        steps:
          - event: app_launch
          - event: feature_opened
            feature: permissions
            expect:
              action: settings_prompt
              rows: \(rows)
        """
    }

    static func failures(_ result: ScenarioResult) -> [String] { result.steps.flatMap(\.failures) }

    @Test func theRowsAsShownPass() async throws {
        let english = try await play(
            Self.scenario(rows: #"[{ name: Notifications, value: "On" }, { name: Time Sensitive, value: "On" }]"#),
            policy: Self.policy, chunkName: "rows.lua")
        #expect(Self.failures(english) == [])
        let german = try await play(
            Self.scenario(
                rows:
                    #"[{ name: { de: Mitteilungen, default: Notifications }, value: { de: "An", default: "On" } }, { name: Time Sensitive, value: "On" }]"#,
                locale: "de"),
            policy: Self.policy, chunkName: "rows.lua")
        #expect(Self.failures(german) == [])
    }

    @Test func aWrongRowIsNamedByItsPlace() async throws {
        let wrong = try await play(
            Self.scenario(rows: #"[{ name: Notifications, value: "On" }, { name: Time Sensitive, value: "Off" }]"#),
            policy: Self.policy, chunkName: "rows.lua")
        #expect(Self.failures(wrong) == [#"decision.rows[2].value: expected "Off", got "On""#])
        let short = try await play(
            Self.scenario(rows: #"[{ name: Notifications, value: "On" }]"#), policy: Self.policy, chunkName: "rows.lua")
        #expect(Self.failures(short).count == 1)
        #expect(Self.failures(short).first?.hasPrefix("decision.rows: expected 1 rows, got 2 (also ") == true, "\(Self.failures(short))")
    }

    /// A row's text with no translation for the device's language chain is the policy's error,
    /// named down to the row, as for a title.
    @Test func aRowWithoutTheDevicesLanguageIsAnError() async throws {
        let policy = Self.policy.replacingOccurrences(of: #"value = { en = "On", de = "An" }"#, with: #"value = { de = "An" }"#)
        #expect(policy != Self.policy)
        let text = """
            name: rows
            device: { os: "17.2", locale: en }
            initial: { authorization: authorized }
            steps:
              - event: app_launch
              - { event: feature_opened, feature: permissions, expect_error: "rows[1].value" }
            """
        let result = try await play(text, policy: policy, chunkName: "rows.lua")
        #expect(Self.failures(result) == [])
        let errors = result.steps.flatMap { $0.outcome?.errors ?? [] }
        #expect(errors.map(\.field) == ["decision.rows[1].value"], "\(errors)")
    }

    @Test func aRowWithoutItsValueIsABadScenario() {
        let error = parseError(Self.scenario(rows: "[{ name: Notifications }]"))
        #expect(error.contains("a row needs its name and its value"), "\(error)")
        let unknown = parseError(Self.scenario(rows: #"[{ name: Notifications, value: "On", colour: red }]"#))
        #expect(unknown.contains("colour"), "\(unknown)")
    }
}
