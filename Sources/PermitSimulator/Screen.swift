import PermitCore

/// What the app's process has on screen. A prompt (a dialog of the app's own, or the system's)
/// stays until it is answered, so it decides what the user may do next; an inline row
/// (`presentation = "inline"`) is part of a screen and blocks nothing.
public enum Screen: Sendable, Hashable {
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
    /// The app's information page (`inform`), a dialog of its own with one button, and a second
    /// that opens Settings and leaves the page up when `opensSettings`.
    case informPage(opensSettings: Bool)
    /// An inline `inform` row with a button (and, when `opensSettings`, one that opens
    /// Settings), on screen while its screen is.
    case inlineInform(opensSettings: Bool)
    /// An inline `inform` row without a button: a label, with nothing to tap.
    case label

    /// What a decision does to the screen.
    public enum Change: Sendable, Equatable {
        /// Nothing: what the app shows stays (`none`, a request iOS answered without a dialog,
        /// Settings opened at once).
        case keep
        /// Take the app's own UI off screen (`dismiss`).
        case clear
        /// Put this on screen, in place of what was there; a modal goes over a row instead
        /// (`SimulatedApp.rowBeneath`).
        case show(Screen)
    }

    /// What an outcome does to the screen: the follow-up's decision when the request was
    /// answered at once, else the event's own.
    public static func change(after outcome: Outcome) -> Change {
        let last = outcome.followUps.last ?? outcome
        switch last.decision.action {
        case .softPrompt(let prompt): return .show(prompt.presentation == .inline ? .inlineSoftPrompt : .softPrompt)
        case .settingsPrompt(let prompt): return .show(prompt.presentation == .inline ? .inlineSettingsPrompt : .settingsPrompt)
        case .inform(let page):
            if page.isLabel { return .show(.label) }
            let opens = page.open != nil
            return .show(page.presentation == .inline ? .inlineInform(opensSettings: opens) : .informPage(opensSettings: opens))
        case .requestPermission: return last.dialogShown ? .show(.systemDialog) : .keep
        case .dismiss: return .clear
        case .none, .openSettings: return .keep
        }
    }

    /// Whether this is the app's own UI (a prompt, a page or a row), which lives in the process:
    /// it survives backgrounding and goes when the process ends (docs/platform.md U-01).
    public var isInApp: Bool { self != .nothing && self != .systemDialog }

    /// Whether this is an inline row, which never blocks the user.
    public var isInline: Bool {
        switch self {
        case .inlineSoftPrompt, .inlineSettingsPrompt, .inlineInform, .label: true
        case .nothing, .softPrompt, .settingsPrompt, .systemDialog, .informPage: false
        }
    }

    /// What it is, in a report's words ("a soft prompt", "the system dialog").
    public var name: String {
        switch self {
        case .nothing: "nothing"
        case .softPrompt: "a soft prompt"
        case .settingsPrompt: "a settings prompt"
        case .systemDialog: "the system dialog"
        case .inlineSoftPrompt: "an inline soft prompt row"
        case .inlineSettingsPrompt: "an inline settings row"
        case .informPage: "an information page"
        case .inlineInform: "an inline information row"
        case .label: "a label row"
        }
    }
}
