import PermitCore

/// What the app's process has on screen during a scenario. A prompt (a dialog of the app's
/// own, or the system's) stays until it is answered, so it decides what the next step may do;
/// an inline row (`presentation = "inline"`) is part of a screen and blocks nothing.
enum Screen: Equatable {
    case nothing, softPrompt, settingsPrompt, systemDialog
    /// An inline row of a soft prompt or of a settings prompt: on screen while its screen is.
    case inlineSoftPrompt, inlineSettingsPrompt

    /// What is on screen after an outcome: the follow-up's decision when the request was
    /// answered at once, else the event's own.
    init(after outcome: Outcome) {
        let last = outcome.followUps.last ?? outcome
        switch last.decision.action {
        case .softPrompt(let prompt): self = prompt.presentation == .inline ? .inlineSoftPrompt : .softPrompt
        case .settingsPrompt(let prompt): self = prompt.presentation == .inline ? .inlineSettingsPrompt : .settingsPrompt
        case .requestPermission: self = last.dialogShown ? .systemDialog : .nothing
        case .none, .openSettings: self = .nothing
        }
    }

    /// Whether this is the app's own UI (a prompt or a row), which lives in the process: it
    /// survives backgrounding and goes when the process ends.
    var isInApp: Bool { self != .nothing && self != .systemDialog }

    /// Whether this is an inline row, which never blocks a step.
    var isInline: Bool { self == .inlineSoftPrompt || self == .inlineSettingsPrompt }

    var answers: [Scenario.Answer] {
        switch self {
        case .nothing: []
        case .softPrompt: [.accept, .decline, .dismiss]
        case .settingsPrompt: [.open, .cancel, .dismiss]
        case .systemDialog: [.allow, .deny]
        // A row is acted on (accept, open) or closed with its own ✕ (dismiss); it has no
        // decline or cancel button.
        case .inlineSoftPrompt: [.accept, .dismiss]
        case .inlineSettingsPrompt: [.open, .dismiss]
        }
    }

    var name: String {
        switch self {
        case .nothing: "nothing"
        case .softPrompt: "a soft prompt"
        case .settingsPrompt: "a settings prompt"
        case .systemDialog: "the system dialog"
        case .inlineSoftPrompt: "an inline soft prompt row"
        case .inlineSettingsPrompt: "an inline settings row"
        }
    }

    /// Why `action` cannot happen with this on screen, or nil when it can. With a prompt up
    /// the user may still leave the app (`app_background`); while the app is away with the
    /// prompt kept, time may pass and the user may return (`app_foreground`). The app's own
    /// prompt goes with its process (`terminate`, or a cold `app_launch` while the app is away).
    func refusal(of action: Scenario.Action, appInForeground: Bool = true) -> String? {
        if case .answer(let answer) = action {
            if self == .nothing { return "there is nothing on screen to answer with \(answer.rawValue)" }
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
        case .event(.appForeground) where !appInForeground, .wait where !appInForeground: return nil
        // The process ends, and the app's own prompts with it.
        case .terminate where isInApp, .event(.appLaunch) where isInApp && !appInForeground: return nil
        default: break
        }
        var allowed = answers.map { "answer: \($0.rawValue)" }
        allowed.append(appInForeground ? "event: app_background" : "event: app_foreground")
        if isInApp { allowed.append("terminate: true") }
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
        case .systemDialog, .nothing:
            if answer == .addToSummary { return .systemPromptAnswered(granted: try device.answerDialogAddingToSummary()) }
            return .systemPromptAnswered(granted: try device.answerDialog(allow: answer == .allow))
        }
    }
}
