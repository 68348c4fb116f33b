import PermitCore

/// What the app's process has on screen. A prompt (a dialog of the app's own, or the system's)
/// stays until it is answered, so it decides what the user may do next; an inline row
/// (`presentation = "inline"`) is part of a screen and blocks nothing.
public enum Screen: Sendable, Equatable {
    /// Nothing of Permit's: the app's own screens only.
    case nothing
    /// The app's soft prompt, a dialog of its own.
    case softPrompt
    /// The app's settings prompt, a dialog of its own.
    case settingsPrompt
    /// The system's permission dialog.
    case systemDialog
    /// An inline row of a soft prompt, on screen while its screen is.
    case inlineSoftPrompt
    /// An inline row of a settings prompt, on screen while its screen is.
    case inlineSettingsPrompt

    /// What is on screen after an outcome: the follow-up's decision when the request was
    /// answered at once, else the event's own.
    public init(after outcome: Outcome) {
        let last = outcome.followUps.last ?? outcome
        switch last.decision.action {
        case .softPrompt(let prompt): self = prompt.presentation == .inline ? .inlineSoftPrompt : .softPrompt
        case .settingsPrompt(let prompt): self = prompt.presentation == .inline ? .inlineSettingsPrompt : .settingsPrompt
        case .requestPermission: self = last.dialogShown ? .systemDialog : .nothing
        case .none, .openSettings: self = .nothing
        }
    }

    /// Whether this is the app's own UI (a prompt or a row), which lives in the process: it
    /// survives backgrounding and goes when the process ends (docs/platform.md U-01).
    public var isInApp: Bool { self != .nothing && self != .systemDialog }

    /// Whether this is an inline row, which never blocks the user.
    public var isInline: Bool { self == .inlineSoftPrompt || self == .inlineSettingsPrompt }

    /// What it is, in a report's words ("a soft prompt", "the system dialog").
    public var name: String {
        switch self {
        case .nothing: "nothing"
        case .softPrompt: "a soft prompt"
        case .settingsPrompt: "a settings prompt"
        case .systemDialog: "the system dialog"
        case .inlineSoftPrompt: "an inline soft prompt row"
        case .inlineSettingsPrompt: "an inline settings row"
        }
    }
}
