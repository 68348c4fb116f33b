import Foundation
import PermitInput
import PermitTestSupport
import Testing

@testable import PermitCore
@testable import PermitScenario

/// Choosing what `permit test` runs: `file:line`, `only`, `skip`, `--ci`, `--fail-fast`.
@Suite struct TestSelectionTests {
    func pack(_ files: [String: String]) -> Tree {
        let tree = Tree()
        tree.write("p/policy.lua", "return {}")
        for (name, text) in files { tree.write("p/tests/\(name)", text) }
        return tree
    }

    func run(_ paths: [String], _ options: TestRun.Options = .init()) async throws -> TestRun {
        await TestRun.run(try Discovery.scenarios(under: paths), options: options, loader: swiftLoader)
    }

    @Test func fileColonLinePicksThatFilesScenario() async throws {
        let tree = pack(["a.yaml": passing, "b.yaml": failing])
        let run = try await self.run([tree.path("p/tests/b.yaml") + ":4"])
        #expect(run.reports.map(\.name) == ["fails"])
        #expect(run.reports.first?.file.packPolicy != nil, "the file still runs its pack's policy")
    }

    @Test func aLinePastTheEndIsAnInputErrorNamingTheFile() async throws {
        let tree = pack(["a.yaml": passing])
        let run = try await self.run([tree.path("p/tests/a.yaml") + ":99"])
        #expect(run.exitCode == 2)
        let text = TextReport().render(run)
        #expect(text.contains("a.yaml:99: no scenario at line 99; the file has 5 lines"))
        #expect(throws: InputError.self) { try Discovery.scenarios(under: [tree.path("p/tests") + ":3"]) }
        #expect(throws: InputError.self) { try Discovery.scenarios(under: [tree.path("p/tests/zzz.yaml") + ":3"]) }
    }

    @Test func skipIsParsedCountedAndShownButNotRun() async throws {
        let tree = pack(["a.yaml": passing, "b.yaml": "skip: \"waiting for new copy\"\n" + failing])
        let run = try await self.run([tree.path()])
        #expect(run.passedCount == 1 && run.failedCount == 0 && run.skippedCount == 1 && run.exitCode == 0)
        let text = TextReport().render(run)
        #expect(text.contains("SKIP  ") && text.contains("fails  (waiting for new copy)"))
        #expect(text.hasSuffix("\n1 passed, 0 failed, 1 skipped"))
        let junit = JUnitReport.render(run)
        #expect(junit.contains("skipped=\"1\"") && junit.contains("<skipped message=\"waiting for new copy\"/>"))
    }

    @Test func skipNeedsAReasonAndOnlyATruthValue() {
        #expect(throws: InputError.self) { try ScenarioParser.parse("skip: \"\"\n" + passing, file: "s.yaml") }
        #expect(throws: InputError.self) { try ScenarioParser.parse("only: maybe\n" + passing, file: "s.yaml") }
    }

    @Test func onlyRunsTheFocusedScenariosAndSaysHowManyItLeftOut() async throws {
        let tree = pack(["a.yaml": passing, "b.yaml": failing, "c.yaml": "only: true\n" + passing])
        let run = try await self.run([tree.path()])
        #expect(run.reports.count == 1 && run.leftOutByOnly == 2 && run.exitCode == 0)
        #expect(TextReport().render(run).contains("only: true left out 2 scenarios"))
    }

    @Test func ciRefusesOnlyNamingFileAndLine() async throws {
        let tree = pack([
            "a.yaml": passing, "c.yaml": "name: focused\nonly: true\n" + passing.replacingOccurrences(of: "name: passes\n", with: ""),
        ])
        let run = try await self.run([tree.path()], TestRun.Options(refuseOnly: true))
        #expect(run.exitCode == 2)
        #expect(TextReport().render(run).contains("c.yaml:2:7: only: not allowed with --ci"))
    }

    @Test func failFastStopsAtTheFirstFailureAndCountsTheRest() async throws {
        let tree = pack(["a.yaml": passing, "b.yaml": failing, "c.yaml": passing, "d.yaml": failing])
        let run = try await self.run([tree.path()], TestRun.Options(failFast: true))
        #expect(run.reports.map(\.name) == ["passes", "fails"])
        #expect(run.notRun == 2 && run.exitCode == 1)
        #expect(
            TextReport().render(run).hasSuffix(
                "\nstopped at the first failure (--fail-fast): 2 scenarios did not run\n1 passed, 1 failed, 0 skipped"))
        let whole = try await self.run([tree.path()])
        #expect(whole.reports.count == 4 && whole.notRun == 0)
    }
}

/// The wording of the runner's messages: each says what happened in the user's terms.
@Suite struct ReportWordingTests {
    @Test func oneUnrunStepIsNotARange() {
        #expect(TextReport.unrunSteps(from: 21, to: 21) == "step 21 did not run")
        #expect(TextReport.unrunSteps(from: 19, to: 21) == "steps 19–21 did not run")
    }

    @Test func aBlockedProposalWithoutWarningsHasNoEmptyTrailingPart() {
        var outcome = Outcome(
            event: .appLaunch, time: 0, statusBefore: .notDetermined, statusAfter: .notDetermined,
            proposed: Decision(.softPrompt(SoftPrompt(title: "t", message: "m", accept: "a", decline: "d"))),
            decision: .none, warnings: [], errors: [], dialogShown: false, immediateAnswer: nil, remindersScheduled: [],
            storageError: nil, trace: "")
        #expect(ExpectationCheck.describeAction(outcome) == "none (the policy proposed soft_prompt)")
        outcome.warnings = [GuardrailWarning(guardrail: .promptCap, message: "x")]
        #expect(ExpectationCheck.describeAction(outcome) == "none (the policy proposed soft_prompt; prompt-cap)")
    }

    @Test func blankTraceLinesAreLeftOut() {
        #expect(TimelineFormatter.traceLines("a\n\n  \nb\n") == ["a", "b"])
        #expect(TimelineFormatter.traceLines("\n").isEmpty)
    }

    @Test func anUnquotedColonInAValueSaysQuoteTheValue() {
        #expect(throws: InputError.self) { try ScenarioParser.parse("name: ios 9: first launch\n" + passing, file: "s.yaml") }
        do {
            _ = try ScenarioParser.parse(
                "name: ios 9: first launch\ndevice: { os: \"16.0\" }\nsteps: [{ event: app_launch }]\n", file: "s.yaml")
        } catch {
            #expect(error.description.contains("s.yaml:1:") && error.description.contains("quote the value"), "\(error)")
        }
    }
}
