import PermitCore
import PermitSimulator

/// What a scenario's steps may do with each screen: the answers it takes, the steps it
/// refuses while it is up, and the event an answer sends.
extension Screen {
    /// The answers its buttons give, `link` last when it carries a web link.
    var answers: [Scenario.Answer] {
        let buttons: [Scenario.Answer]
        switch self {
        case .nothing: buttons = []
        case .softPrompt: buttons = [.accept, .decline, .dismiss]
        case .settingsPrompt: buttons = [.open, .cancel, .dismiss]
        case .systemDialog: buttons = [.allow, .deny]
        // A row is acted on (accept, open) or closed with its own ✕ (dismiss); it has no
        // decline or cancel button.
        case .inlineSoftPrompt: buttons = [.accept, .dismiss]
        case .inlineSettingsPrompt: buttons = [.open, .dismiss]
        // A page's `open` opens Settings and leaves the page up; `ok` or `dismiss` closes it.
        case .informPage(let opens, _), .inlineInform(let opens, _): buttons = opens ? [.ok, .open, .dismiss] : [.ok, .dismiss]
        // A label has nothing to tap; the policy takes it away (`dismiss`), or its screen does.
        case .label: buttons = []
        }
        return isLinked ? buttons + [.link] : buttons
    }

    /// Whether `answer` leaves this on screen. A row is part of its screen: acting on it
    /// (`open`, `accept`) never takes it away, so it is there when the user comes back from
    /// Settings or from the system dialog, until the policy replaces or dismisses it, its ✕
    /// closes it, or its screen or process goes. An information page's `open` leaves the page up
    /// for the user's return, and a web link (`link`) what it is on. Every other answer takes
    /// what it answers off screen.
    func stays(after answer: Scenario.Answer) -> Bool {
        if answer == .link { return true }
        return switch self {
        case .inlineSoftPrompt: answer == .accept
        case .inlineSettingsPrompt, .informPage, .inlineInform: answer == .open
        case .nothing, .softPrompt, .settingsPrompt, .systemDialog, .label: false
        }
    }

    /// The screen's name in a scenario (`expect_screen: inform_page`).
    var key: String {
        switch self {
        case .nothing: "nothing"
        case .softPrompt: "soft_prompt"
        case .settingsPrompt: "settings_prompt"
        case .systemDialog: "system_dialog"
        case .inlineSoftPrompt: "inline_soft_prompt"
        case .inlineSettingsPrompt: "inline_settings_prompt"
        case .informPage: "inform_page"
        case .inlineInform: "inline_inform"
        case .label: "label"
        }
    }

    /// Every screen, for `expect_screen` (a page with an `open` button or a prompt with a web
    /// link has its plain name).
    static let all: [Screen] = [
        .nothing, .softPrompt(linked: false), .settingsPrompt(linked: false), .systemDialog,
        .inlineSoftPrompt(linked: false), .inlineSettingsPrompt(linked: false),
        .informPage(opensSettings: false, linked: false), .inlineInform(opensSettings: false, linked: false), .label,
    ]

    /// Why `action` cannot happen with this on screen, or nil when it can. With a prompt up
    /// the user may still leave the app (`app_background`); while the app is away with the
    /// prompt kept, time may pass, the app may run in the background (`background_refresh`,
    /// which shows nothing), the user may change Settings (an information page's `open` left
    /// it up) and may return (`app_foreground`). The app's own prompt goes with its
    /// process (`terminate`, or a cold `app_launch` while the app is away).
    func refusal(of action: Scenario.Action, appInForeground: Bool = true) -> String? {
        if case .answer(let answer) = action {
            if self == .nothing { return "there is nothing on screen to answer with \(answer.rawValue)" }
            if answers.isEmpty { return "\(name) is on screen, with nothing to tap; there is nothing to answer with \(answer.rawValue)" }
            // "Add to Scheduled Summary" is on the dialog only with Scheduled Summary on: the
            // device refuses it otherwise, with the reason.
            if !answers.contains(answer), !(self == .systemDialog && answer == .addToSummary) {
                return "\(name) is on screen; answer it with "
                    + answers.map(\.rawValue).joined(separator: ", ") + ", not \(answer.rawValue)"
            }
            return nil
        }
        guard self != .nothing, !isInline else { return nil }
        switch action {
        case .event(.appBackground) where appInForeground: return nil
        case .event(.appForeground) where !appInForeground, .wait where !appInForeground,
            .event(.backgroundRefresh) where !appInForeground:
            return nil
        case .settings where !appInForeground && isInApp: return nil
        // The process ends (an update ends it too), and the app's own prompts with it.
        case .terminate where isInApp, .appUpdate where isInApp, .event(.appLaunch) where isInApp && !appInForeground: return nil
        default: break
        }
        var allowed = answers.map { "answer: \($0.rawValue)" }
        allowed += appInForeground ? ["event: app_background"] : ["event: app_foreground", "event: background_refresh"]
        if !appInForeground && isInApp { allowed.append("settings: {...}") }
        if isInApp { allowed += ["terminate: true", "app_update: VERSION"] }
        return "\(name) is on screen and stays until answered; this step must be one of `"
            + allowed.joined(separator: "`, `") + "`"
    }

    /// The event an answer sends; a dialog answer taps the simulated device first.
    func event(answering answer: Scenario.Answer, on device: SimulatedDevice) throws(SimulatedDeviceError) -> AppEvent {
        switch self {
        case .softPrompt, .inlineSoftPrompt:
            return .softPromptAnswered(SoftPromptAnswer(rawValue: answer.rawValue)!)
        case .settingsPrompt, .inlineSettingsPrompt:
            return .settingsPromptAnswered(SettingsPromptAnswer(rawValue: answer.rawValue)!)
        case .informPage, .inlineInform, .label:
            return .informAnswered(InformAnswer(rawValue: answer.rawValue)!)
        case .systemDialog, .nothing:
            if answer == .addToSummary { return .systemPromptAnswered(granted: try device.answerDialogAddingToSummary()) }
            return .systemPromptAnswered(granted: try device.answerDialog(allow: answer == .allow))
        }
    }
}
