import Foundation
import PermitCore
import Testing

@testable import PermitScenario

/// `expect: { row: ... }`: a scenario holds a decision's `row` (the inline row put up with a
/// modal) to the fields it gives, to an action name, or to `none`, and a wrong one is named in
/// the row.
@Suite struct ExpectRowTests {
    static let policy = """
        return { name = "row", decide = function(ctx)
          if ctx.event.name ~= "feature_opened" then return nil end
          return { action = "inform", id = "warning", title = "Alerts are off", message = "M", button = "OK",
                   row = { action = "settings_prompt", id = "status_row", title = { en = "Off", de = "Aus" }, message = "Fix it" } }
        end }
        """

    static func scenario(expect: String, locale: String = "en") -> String {
        """
        name: row
        device: { os: "17.2", locale: \(locale) }
        initial: { authorization: denied }
        steps:
          - event: app_launch
          - event: feature_opened
            feature: home
            expect: \(expect)
        """
    }

    static func failures(_ expect: String, locale: String = "en") async throws -> [String] {
        try await play(Self.scenario(expect: expect, locale: locale), policy: Self.policy, chunkName: "row.lua")
            .steps.flatMap(\.failures)
    }

    @Test func theRowAsShownPasses() async throws {
        #expect(try await Self.failures("{ action: inform, row: { action: settings_prompt, id: status_row, title: \"Off\" } }") == [])
        #expect(try await Self.failures("{ row: settings_prompt }") == [])
        #expect(try await Self.failures("{ row: { title: { de: Aus, default: \"Off\" }, presentation: inline } }", locale: "de") == [])
    }

    @Test func aWrongRowIsNamedInTheRow() async throws {
        #expect(try await Self.failures("{ row: { id: status_row, title: \"On\" } }") == [#"decision.row.title: expected "On", got "Off""#])
        #expect(try await Self.failures("{ row: inform }") == [#"decision.row.action: expected "inform", got "settings_prompt""#])
        #expect(try await Self.failures("{ row: none }") == [#"decision.row: expected none, got a "settings_prompt" row"#])
    }

    @Test func aDecisionWithoutARowFailsAnExpectedOne() async throws {
        let policy = """
            return { name = "row", decide = function(ctx)
              if ctx.event.name == "feature_opened" then return { action = "inform", title = "T", message = "M", button = "OK" } end
            end }
            """
        let result = try await play(Self.scenario(expect: "{ row: { id: status_row } }"), policy: policy, chunkName: "row.lua")
        #expect(result.steps.flatMap(\.failures) == [#"decision.row: expected a row, got none"#])
    }

    @Test func aRowWithAReasonIsABadScenario() {
        let error = parseError(Self.scenario(expect: "{ row: { action: inform, reason: why } }"))
        #expect(error.contains("a row has no reason of its own"), "\(error)")
        let unknown = parseError(Self.scenario(expect: "{ row: banner }"))
        #expect(unknown.contains("banner"), "\(unknown)")
    }
}
