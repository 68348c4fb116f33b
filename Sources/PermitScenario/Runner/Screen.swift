import PermitCore

/// What is on screen during a scenario, waiting for an `answer`. A prompt stays until it is
/// answered, so what is on screen decides what the next step may do.
enum Screen: Equatable {
    case nothing, softPrompt, settingsPrompt, systemDialog

    /// What is on screen after an outcome: the follow-up's decision when the request was
    /// answered at once, else the event's own.
    init(after outcome: Outcome) {
        let last = outcome.followUps.last ?? outcome
        switch last.decision.action {
        case .softPrompt: self = .softPrompt
        case .settingsPrompt: self = .settingsPrompt
        case .requestPermission: self = last.dialogShown ? .systemDialog : .nothing
        case .none: self = .nothing
        }
    }

    var answers: [Scenario.Answer] {
        switch self {
        case .nothing: []
        case .softPrompt: [.accept, .decline, .dismiss]
        case .settingsPrompt: [.open, .cancel, .dismiss]
        case .systemDialog: [.allow, .deny]
        }
    }

    var name: String {
        switch self {
        case .nothing: "nothing"
        case .softPrompt: "a soft prompt"
        case .settingsPrompt: "a settings prompt"
        case .systemDialog: "the system dialog"
        }
    }

    /// Why `action` cannot happen with this on screen, or nil when it can. With the system
    /// dialog up the user may still leave the app (`app_background`); while the app is away
    /// with the dialog kept, time may pass and the user may return (`app_foreground`).
    func refusal(of action: Scenario.Action, appInForeground: Bool = true) -> String? {
        if self == .systemDialog {
            switch action {
            case .event(.appBackground) where appInForeground: return nil
            case .event(.appForeground) where !appInForeground, .wait where !appInForeground: return nil
            default: break
            }
        }
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
        // The process ends, and the app's own prompts with it.
        if case .terminate = action, self == .softPrompt || self == .settingsPrompt { return nil }
        guard self != .nothing else { return nil }
        return "\(name) is on screen and stays until answered; this step must be `answer: "
            + answers.map(\.rawValue).joined(separator: " | ") + "`"
    }

    /// The event an answer sends; a dialog answer taps the simulated device first.
    func event(answering answer: Scenario.Answer, on device: SimulatedDevice) throws(SimulatedDeviceError) -> AppEvent {
        switch self {
        case .softPrompt:
            return .softPromptAnswered(SoftPromptAnswer(rawValue: answer.rawValue)!)
        case .settingsPrompt:
            return .settingsPromptAnswered(SettingsPromptAnswer(rawValue: answer.rawValue)!)
        case .systemDialog, .nothing:
            if answer == .addToSummary { return .systemPromptAnswered(granted: try device.answerDialogAddingToSummary()) }
            return .systemPromptAnswered(granted: try device.answerDialog(allow: answer == .allow))
        }
    }
}
