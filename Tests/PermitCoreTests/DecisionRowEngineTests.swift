import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// A decision's `row` in the engine: localised with the action, judged by the guardrails as
/// a row decided alone, counted as a row shown, and answered after the modal over it.
@Suite struct DecisionRowEngineTests {
    static let alert = SettingsPrompt(
        title: "Alerts are off", message: "You will miss safety alerts.", open: "Settings", cancel: "Later", id: "unsafe_alert")
    static let row = SettingsPrompt(
        title: .translations(["en": "Safety alerts are off", "de": "Sicherheitswarnungen sind aus"]), message: "Tap to fix.",
        open: nil, cancel: nil, presentation: .inline, id: "unsafe_row")

    static func withRow(_ action: Decision.Action, _ row: Decision.Action) -> Decision {
        var decision = Decision(action)
        decision.row = row
        return decision
    }

    /// The modal and the row are both shown and counted; the modal's answer comes first (it is
    /// on top) and closes it, so the next answer of the same kind is the row's, which stays.
    @Test func answersGoToTheModalThenToTheRowBeneath() async {
        let seen = Locked<[String]>([])
        let policy = ClosurePolicy(name: "row") { context in
            seen.withLock { $0.append("\(context.event.name)=\(context.promptID ?? "-")") }
            if context.event == .featureOpened("home") { return Self.withRow(.settingsPrompt(Self.alert), .settingsPrompt(Self.row)) }
            return nil
        }
        let world = World(authorization: .denied, policy: policy)
        let shown = await world.engine.handle(.featureOpened("home"))
        guard case .settingsPrompt(let row)? = shown.decision.row else {
            Issue.record("\(shown.decision)")
            return
        }
        #expect(row.title == .plain("Safety alerts are off"))
        _ = await world.engine.handle(.settingsPromptAnswered(.cancel))
        _ = await world.engine.handle(.settingsPromptAnswered(.open))
        _ = await world.engine.handle(.settingsPromptAnswered(.open))
        _ = await world.engine.handle(.settingsPromptAnswered(.dismiss))
        _ = await world.engine.handle(.settingsPromptAnswered(.open))
        #expect(
            seen.withLock { $0 } == [
                "feature_opened=-", "settings_prompt_answered=unsafe_alert", "settings_prompt_answered=unsafe_row",
                "settings_prompt_answered=unsafe_row", "settings_prompt_answered=unsafe_row", "settings_prompt_answered=-",
            ])
        let history = await world.engine.history
        #expect(history.settingsPrompt.shown == 1)
        #expect(history.settingsPrompt.inlineShown == 1)
        #expect(history.settingsPrompt.cancelled == 1)
        // The row's Open is acted on as a row's (twice); the last one answers nothing shown.
        #expect(history.settingsPrompt.inlineActed == 2)
    }

    /// A row the guardrails void voids the decision: an inline soft prompt while denied can
    /// lead to no dialog, so the alert over it does not show either, and nothing is remembered.
    @Test func aVoidedRowVoidsTheDecision() async {
        let soft = SoftPrompt(title: "Turn on", message: "M", accept: "Turn on", decline: nil, presentation: .inline, id: "soft_row")
        let policy = ClosurePolicy(name: "row") { _ in
            var decision = Self.withRow(.settingsPrompt(Self.alert), .softPrompt(soft))
            decision.remember = ["shown": .bool(true)]
            return decision
        }
        let world = World(authorization: .denied, policy: policy)
        let outcome = await world.engine.handle(.featureOpened("home"))
        #expect(outcome.decision.action == .none)
        #expect(outcome.decision.row == nil)
        #expect(outcome.warnings.map(\.name) == ["soft-prompt-pointless"])
        #expect(outcome.warnings.first?.message.hasPrefix("decision.row: ") == true)
        let history = await world.engine.history
        #expect(history.state["shown"] == nil)
        #expect(history.settingsPrompt.shown == 0)
    }

    /// The row's texts are resolved for the device's language; one without it is the policy's
    /// error, named in the row.
    @Test func aRowsMissingTranslationIsNamedInTheRow() async {
        var french = Self.row
        french.title = .translations(["fr": "Alertes désactivées"])
        let row = french
        let policy = ClosurePolicy(name: "row") { _ in Self.withRow(.settingsPrompt(Self.alert), .settingsPrompt(row)) }
        let world = World(authorization: .denied, policy: policy)
        let outcome = await world.engine.handle(.featureOpened("home"))
        #expect(outcome.decision.action == .none)
        #expect(outcome.errors.map(\.field) == ["decision.row.title"])
        #expect(outcome.errors.first?.kind == .missingTranslation)
    }
}
