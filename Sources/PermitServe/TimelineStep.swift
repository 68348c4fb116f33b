import Foundation
import PermitCore
import PermitScenario

/// A scenario step, and a decision, as the page draws them: the fields, and what the user
/// sees on the simulated iPhone.
enum TimelineStep {
    /// The step's row of the timeline.
    static func step(_ step: StepResult, formatter: TimelineFormatter, locale: String) -> PlaygroundReports.Step {
        let outcome = step.outcome
        return PlaygroundReports.Step(
            number: step.number, line: step.location.line, clock: formatter.clock(step.time), action: step.action,
            statusBefore: outcome?.statusBefore.rawValue, status: step.status.rawValue,
            decision: outcome.map { fields($0.finalDecision) } ?? [:],
            reason: outcome?.finalDecision.reason ?? outcome?.proposed?.reason,
            warnings: (outcome.map { $0.warnings + $0.followUps.flatMap(\.warnings) } ?? []).map { "\($0.name): \($0.message)" },
            errors: (outcome.map { $0.errors + $0.followUps.flatMap(\.errors) } ?? []).map(\.description),
            trace: outcome.map { ([$0.trace] + $0.followUps.map(\.trace)).filter { !$0.isEmpty }.joined(separator: "\n") } ?? "",
            summary: outcome.map { formatter.line(for: $0) } ?? step.action,
            screen: outcome.map { screen(after: $0, locale: locale) } ?? PlaygroundReports.Screen(kind: "none", buttons: []),
            failures: step.failures)
    }

    /// Every step, each with a picture of what is on screen after it, not only of what its own
    /// decision showed: a prompt left up while the user was away, a row that stays after it was
    /// tapped, the row beneath a modal. The app's screen after each step (`StepResult.screen`)
    /// says what is up; the texts are those of the decision that last showed it.
    static func steps(_ results: [StepResult], formatter: TimelineFormatter, locale: String) -> [PlaygroundReports.Step] {
        var shown: [String: PlaygroundReports.Screen] = [:]
        return results.map { result in
            var step = step(result, formatter: formatter, locale: locale)
            for outcome in result.earlierOutcomes + [result.outcome].compactMap({ $0 }) {
                let picture = screen(after: outcome, locale: locale)
                if picture.kind != "none" { shown[picture.kind] = picture }
                // A decision's `row`, put on screen with its action (beneath it when a modal).
                if let row = outcome.finalRow {
                    let picture = screen(of: row, dialogShown: false, locale: locale)
                    if picture.kind != "none" { shown[picture.kind] = picture }
                }
            }
            if result.screen == "nothing" {
                step.screen = PlaygroundReports.Screen(kind: "none", buttons: [], note: step.screen.note)
            } else if let up = shown[result.screen] {
                step.screen.kind = up.kind
                (step.screen.title, step.screen.message, step.screen.buttons) = (up.title, up.message, up.buttons)
                (step.screen.link, step.screen.url, step.screen.rows) = (up.link, up.url, up.rows)
            }
            step.beneath = result.rowBeneath.flatMap { shown[$0] }
            return step
        }
    }

    /// A decision's fields as text (a list joined with commas).
    static func fields(_ decision: Decision) -> [String: String] {
        decision.fields.mapValues { value in
            switch value {
            case .string(let text): text
            case .list(let items):
                items.map { item in if case .string(let text) = item { text } else { "\(item)" } }.joined(separator: ", ")
            default: "\(value)"
            }
        }
    }

    /// What is on screen after `outcome`: the follow-up's decision when the request was
    /// answered at once, else the event's own; the system dialog only when iOS showed it.
    static func screen(after outcome: Outcome, locale: String) -> PlaygroundReports.Screen {
        let last = outcome.followUps.last ?? outcome
        return screen(of: last.decision.action, dialogShown: last.dialogShown, locale: locale)
    }

    /// The screen an action shows, with its web link; `dialogShown` says whether iOS showed
    /// the dialog of a request.
    static func screen(of action: Decision.Action, dialogShown: Bool, locale: String) -> PlaygroundReports.Screen {
        var screen = screen(showing: action, dialogShown: dialogShown, locale: locale)
        if let link = action.link {
            screen.link = link.text.resolved(for: locale)
            screen.url = link.address.resolved(for: locale)
        }
        return screen
    }

    /// The screen of one action, its web link aside.
    private static func screen(showing action: Decision.Action, dialogShown: Bool, locale: String) -> PlaygroundReports.Screen {
        func text(_ value: LocalizedText?) -> String? { value.flatMap { $0.resolved(for: locale) } }
        func rows(_ rows: [InfoRow]) -> [PlaygroundReports.Row] {
            rows.map { PlaygroundReports.Row(name: text($0.name) ?? "", value: text($0.value) ?? "") }
        }
        switch action {
        case .softPrompt(let prompt):
            return PlaygroundReports.Screen(
                kind: prompt.presentation == .inline ? "inline_soft_prompt" : "soft_prompt", title: text(prompt.title),
                message: text(prompt.message), buttons: [text(prompt.accept), text(prompt.decline)].compactMap { $0 })
        case .settingsPrompt(let prompt):
            return PlaygroundReports.Screen(
                kind: prompt.presentation == .inline ? "inline_settings_prompt" : "settings_prompt", title: text(prompt.title),
                message: text(prompt.message), buttons: [text(prompt.open), text(prompt.cancel)].compactMap { $0 },
                rows: rows(prompt.rows))
        case .requestPermission(let options):
            guard dialogShown else {
                let quiet = options.contains { $0.rawValue == "provisional" }
                return PlaygroundReports.Screen(
                    kind: "none", buttons: [],
                    note: quiet
                        ? "provisional: no dialog; notifications arrive quietly in Notification Center" : "no dialog: iOS did not show it")
            }
            // Apple's wording of the alert (UNUserNotificationCenter.requestAuthorization), in English.
            return PlaygroundReports.Screen(
                kind: "system_dialog", title: "“App” Would Like to Send You Notifications",
                message: "Notifications may include alerts, sounds, and icon badges. These can be configured in Settings.",
                buttons: ["Don’t Allow", "Allow"])
        case .inform(let page):
            let kind = page.isLabel ? "label" : page.presentation == .inline ? "inline_inform" : "inform_page"
            return PlaygroundReports.Screen(
                kind: kind, title: text(page.title), message: text(page.message),
                buttons: [text(page.button), text(page.open)].compactMap { $0 }, rows: rows(page.rows))
        case .openSettings:
            return PlaygroundReports.Screen(kind: "none", buttons: [], note: "the app opens Settings")
        case .dismiss:
            return PlaygroundReports.Screen(kind: "none", buttons: [], note: "the app takes its prompt, row or page off screen")
        case .none:
            return PlaygroundReports.Screen(kind: "none", buttons: [])
        }
    }
}
