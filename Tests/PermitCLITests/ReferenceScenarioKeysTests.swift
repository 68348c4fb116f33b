import Foundation
import PermitLua
import PermitTestSupport
import Testing

@testable import PermitCore
@testable import PermitScenario

/// docs/reference/scenarios.md lists exactly the scenario keys the parser accepts, at every level, so a
/// reader of the docs can write every key the runner takes (and none it refuses).
@Suite struct ReferenceScenarioKeysTests {
    let reference: ReferenceTables

    init() throws { reference = try ReferenceTables() }

    @Test func topLevelDeviceUserEngineAndInitialKeys() throws {
        #expect(try reference.keys("scenario") == ScenarioParser.topKeys)
        #expect(try reference.keys("scenario.device") == ScenarioParser.deviceKeys)
        #expect(try reference.keys("scenario.user") == ScenarioParser.userKeys)
        #expect(try reference.keys("scenario.engine") == ScenarioParser.engineKeys)
        #expect(try reference.keys("scenario.initial") == ScenarioParser.initialKeys)
    }

    /// `initial.ledger` and `expect_ledger` take ctx.history's names plus the extra ones.
    @Test func ledgerKeysAreCtxHistoryPlusTheExtras() throws {
        let documented = try reference.keys("ctx.history") + reference.keys("scenario.ledger-extra")
        #expect(Set(documented) == Set(Ledger.topLevelFields))
        for (table, fields) in Ledger.nestedFields {
            #expect(Set(try reference.keys("ctx.history.\(table)")) == Set(fields), "ctx.history.\(table)")
        }
        #expect(Set(try reference.keys("ctx.history.features")) == Set(Ledger.featureFields))
    }

    @Test func stepKeysAndExpectations() throws {
        let actions = try reference.keys("scenario.step")
        let expectations = try reference.keys("scenario.expectation")
        #expect(Set(actions).isDisjoint(with: expectations))
        #expect(Set(actions + expectations) == Set(ScenarioParser.stepKeys))
        #expect(Set(ScenarioParser.expectationKeys).isSubset(of: expectations))
        #expect(Set(ScenarioParser.stepActionKeys).isSubset(of: actions))
        #expect(try reference.keys("scenario.event") == ScenarioParser.stepEvents)
        #expect(try reference.keys("scenario.answer") == Scenario.Answer.allCases.map(\.rawValue))
        #expect(try reference.keys("scenario.reinstall") == ScenarioParser.reinstallKeys)
        // A `settings:` step: `authorization`, then the setting names of ctx.settings.
        #expect(try reference.keys("scenario.step-settings") + reference.keys("ctx.settings") == ScenarioParser.settingsStepKeys)
    }

    @Test func expectTablesMatchTheParser() throws {
        #expect(try reference.keys("scenario.expect") == ScenarioParser.decisionFields)
        #expect(try reference.keys("scenario.expect_reminders") == ScenarioParser.expectedReminderKeys)
        #expect(try reference.keys("scenario.expect_reminders-item") == ScenarioParser.expectedReminderItemKeys)
        #expect(try reference.keys("scenario.expect_notified-item") == ScenarioParser.expectedNotificationKeys)
    }

    @Test func matrixAxesAndIncludedFileKeys() throws {
        #expect(try reference.keys("scenario.matrix") == ScenarioMatrix.axes)
        #expect(try reference.keys("scenario.include-file") == ScenarioParser.includedFileKeys)
    }

    /// The documented example is a real test of the polite pack: it parses with every key it
    /// shows, and passes when it sits in `policies/polite/tests/`.
    @Test func theReferenceExamplePassesAgainstThePolitePack() async throws {
        let text = try reference.page("scenarios")
        let start = try #require(text.range(of: "```yaml\nname: iOS 9"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let yaml = String(text[text.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])
        let tests = ReferenceTables.repository.appendingPathComponent("policies/polite/tests")
        let scenario = try ScenarioParser.parse(yaml, file: "reference.yaml", directory: tests)
        #expect(scenario.userBucket == 0)
        #expect(scenario.maxPromptsPerDay == 3)
        #expect(scenario.initial.ledger.launches == 4)
        #expect(scenario.steps.count == 8)
        let policyURL = try #require(scenario.policy)
        #expect(policyURL.standardizedFileURL.path.hasSuffix("policies/polite/policy.lua"))
        let result = try await ScenarioRunner(policy: try LuaPolicy.load(contentsOf: policyURL)).run(scenario)
        #expect(result.passed, "\(result.steps.flatMap(\.failures))")
    }
}
