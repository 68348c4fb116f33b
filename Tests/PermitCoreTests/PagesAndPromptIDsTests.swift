import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// The app's information pages (`inform`), `dismiss`, and the `id` an answer carries back
/// (`ctx.event.prompt_id`), in the core: guardrails, ledger and engine.
@Suite struct PagesAndPromptIDsTests {
    let page = InformPage(title: "About alerts", message: "They may arrive late.", button: "Got it", id: "safety")

    /// An information page is no prompt: no guardrail voids it, whatever the status and the
    /// day's count; `dismiss` passes untouched too.
    @Test func aPageIsNoPromptForTheGuardrails() {
        for status in [PermissionStatus.denied, .authorized, .notDetermined, .unknown] {
            let situation = GuardrailSituation(
                status: status, settings: .typical(for: status, on: version("17.0")), version: version("17.0"),
                appIsActive: false, promptsToday: 9, maxPromptsPerDay: 1, userInitiated: false)
            for action in [Decision.Action.inform(page), .dismiss] {
                let applied = Guardrail.apply(to: action, in: situation)
                #expect(applied.action == action, "\(action.name) at \(status)")
                #expect(applied.warnings.isEmpty, "\(action.name) at \(status)")
            }
        }
    }

    /// The engine shows a page past the cap while denied, counts it in `inform`, not in
    /// `prompts_today`, and counts each answer.
    @Test func theEngineCountsPagesApartFromPrompts() async {
        let world = World(authorization: .denied, maxPromptsPerDay: 0, policy: always(.inform(page)))
        let shown = await world.engine.handle(.appLaunch)
        #expect(shown.decision.action == .inform(page))
        #expect(shown.warnings.isEmpty)
        _ = await world.engine.handle(.informAnswered(.ok))
        _ = await world.engine.handle(.informAnswered(.dismiss))
        let history = await world.engine.history
        #expect(history.inform.shown == 3)
        #expect(history.inform.ok == 1)
        #expect(history.inform.dismissed == 1)
        #expect(history.inform.lastShownAt != nil)
        #expect(history.promptsToday == 0)
    }

    /// Each answer carries the id of what it answers; the system dialog's answer, the id of the
    /// soft prompt whose accept led to the request; other events none.
    @Test func answersCarryTheIDOfWhatTheyAnswer() async throws {
        let seen = Locked<[String]>([])
        let policy = ClosurePolicy(name: "ids") { context in
            seen.withLock { $0.append("\(context.event.name)=\(context.promptID ?? "-")") }
            switch context.event {
            case .appLaunch:
                var prompt = softPrompt
                prompt.id = "welcome"
                return Decision(.softPrompt(prompt))
            case .softPromptAnswered(.accept): return Decision(.requestPermission(options: [.alert]))
            case .systemPromptAnswered: return Decision(.inform(page))
            default: return nil
            }
        }
        let world = World(policy: policy)
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.softPromptAnswered(.accept))
        _ = try await world.answerDialog(allow: false)
        _ = await world.engine.handle(.informAnswered(.ok))
        _ = await world.engine.handle(.featureOpened("diary"))
        #expect(
            seen.withLock { $0 } == [
                "app_launch=-", "soft_prompt_answered=welcome", "system_prompt_answered=welcome", "inform_answered=safety",
                "feature_opened=-",
            ])
    }

    /// A request not made after a soft prompt's accept carries no id, also when iOS answers it
    /// at once (the follow-up hears the answer in the same event).
    @Test func aRequestOfItsOwnCarriesNoID() async {
        let seen = Locked<[String]>([])
        let policy = ClosurePolicy(name: "ids") { context in
            seen.withLock { $0.append("\(context.event.name)=\(context.promptID ?? "-")") }
            if context.event == .featureOpened("alerts") { return Decision(.requestPermission(options: [.alert])) }
            return nil
        }
        let world = World(authorization: .denied, policy: policy)
        let outcome = await world.engine.handle(.featureOpened("alerts"))
        #expect(outcome.immediateAnswer == false)
        #expect(seen.withLock { $0 } == ["feature_opened=-", "system_prompt_answered=-"])
    }

    /// A page's `open` button: the answer counts in `inform.opened` (not `ok` or `dismissed`)
    /// and carries the page's id; the page is shown once. Its link falls back to the app's
    /// Settings page below iOS 15.4, as a settings prompt's does, and the decision's fields name
    /// the button and the link.
    @Test func aPagesOpenButtonCountsApartAndItsLinkFallsBack() async {
        let withOpen = InformPage(
            title: page.title, message: page.message, button: page.button, open: "Open Settings", deepLink: .notificationSettings,
            id: page.id)
        let seen = Locked<[String]>([])
        let policy = ClosurePolicy(name: "open") { context in
            seen.withLock { $0.append("\(context.event.name)=\(context.promptID ?? "-")") }
            return context.event == .appLaunch ? Decision(.inform(withOpen)) : nil
        }
        let world = World(authorization: .denied, policy: policy)
        let shown = await world.engine.handle(.appLaunch)
        #expect(shown.decision.action == .inform(withOpen))
        #expect(shown.decision.fields["open"] == .string("Open Settings"))
        #expect(shown.decision.fields["deep_link"] == .string("notification_settings"))
        _ = await world.engine.handle(.informAnswered(.open))
        _ = await world.engine.handle(.informAnswered(.ok))
        let history = await world.engine.history
        #expect(history.inform.shown == 1)
        #expect(history.inform.opened == 1)
        #expect(history.inform.ok == 1)
        #expect(history.inform.dismissed == 0)
        #expect(seen.withLock { $0 } == ["app_launch=-", "inform_answered=safety", "inform_answered=safety"])

        let old = GuardrailSituation(
            status: .denied, settings: .typical(for: .denied, on: version("15.0")), version: version("15.0"),
            appIsActive: true, promptsToday: 0, maxPromptsPerDay: 1)
        let applied = Guardrail.apply(to: .inform(withOpen), in: old)
        var fallen = withOpen
        fallen.deepLink = .appSettings
        #expect(applied.action == .inform(fallen))
        #expect(applied.warnings.map(\.guardrail) == [.deepLinkFallback])
        // Without an open button the link is no link: nothing to fall back.
        #expect(Guardrail.apply(to: .inform(page), in: old).warnings.isEmpty)
        #expect(Decision(.inform(page)).fields["deep_link"] == nil)
    }

    /// A ledger written before pages existed reads with zero counts; a negative count is refused.
    @Test func theInformHistoryDecodesLenientlyAndIsChecked() throws {
        let old = try JSONDecoder().decode(Ledger.self, from: Data(#"{"launches":2}"#.utf8))
        #expect(old.inform == Ledger.InformHistory())
        let damaged = try JSONDecoder().decode(Ledger.self, from: Data(#"{"inform":{"ok":-1}}"#.utf8))
        #expect(damaged.valueProblem == "inform.ok is -1; counters are never negative")
        let opened = try JSONDecoder().decode(Ledger.self, from: Data(#"{"inform":{"opened":-2}}"#.utf8))
        #expect(opened.valueProblem == "inform.opened is -2; counters are never negative")
        var ledger = Ledger()
        ledger.recordInformShown(at: 5)
        ledger.record(.informAnswered(.open), at: 6, legacy: false)
        let again = try JSONDecoder().decode(Ledger.self, from: JSONEncoder().encode(ledger))
        #expect(again.inform.shown == 1)
        #expect(again.inform.lastShownAt == 5)
        #expect(again.inform.opened == 1)
    }
}
