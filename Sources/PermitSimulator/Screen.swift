import PermitCore

/// What the app's process has on screen. A prompt (a dialog of the app's own, or the system's)
/// stays until it is answered, so it decides what the user may do next; an inline row
/// (`presentation = "inline"`) is part of a screen and blocks nothing.
public enum Screen: Sendable, Hashable {
    /// Nothing of Permit's: the app's own screens only.
    case nothing
    /// The app's soft prompt, a dialog of its own; `linked` when it carries a web link
    /// (`link`), which leaves it on screen.
    case softPrompt(linked: Bool)
    /// The app's settings prompt, a dialog of its own (`linked`: with a web link).
    case settingsPrompt(linked: Bool)
    /// The system's permission dialog.
    case systemDialog
    /// An inline row of a soft prompt, on screen while its screen is (`linked`: with a web link).
    case inlineSoftPrompt(linked: Bool)
    /// An inline row of a settings prompt, on screen while its screen is (`linked`: with a web link).
    case inlineSettingsPrompt(linked: Bool)
    /// The app's information page (`inform`), a dialog of its own with one button, and a second
    /// that opens Settings and leaves the page up when `opensSettings`; `linked` when it
    /// carries a web link, which leaves it up too.
    case informPage(opensSettings: Bool, linked: Bool)
    /// An inline `inform` row with a button (and, when `opensSettings`, one that opens
    /// Settings; when `linked`, a web link), on screen while its screen is.
    case inlineInform(opensSettings: Bool, linked: Bool)
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
        case .requestPermission: return last.dialogShown ? .show(.systemDialog) : .keep
        case .dismiss: return .clear
        case .none, .openSettings: return .keep
        case .softPrompt, .settingsPrompt, .inform: return shown(by: last.decision.action).map(Change.show) ?? .keep
        }
    }

    /// The row a decision's `row` puts on the app's screen with its action (`.nothing` for a
    /// row taken away): the last one the outcome's decisions carry (a follow-up's over the
    /// event's own), or `nil` when none changes the row.
    public static func row(after outcome: Outcome) -> Screen? {
        guard let row = outcome.finalRow else { return nil }
        return shown(by: row) ?? .nothing
    }

    /// What the app shows for a prompt, page or row of the app's own; `nil` for the actions
    /// that show none of its own.
    public static func shown(by action: Decision.Action) -> Screen? {
        switch action {
        case .softPrompt(let prompt):
            let linked = prompt.link != nil
            return prompt.presentation == .inline ? .inlineSoftPrompt(linked: linked) : .softPrompt(linked: linked)
        case .settingsPrompt(let prompt):
            let linked = prompt.link != nil
            return prompt.presentation == .inline ? .inlineSettingsPrompt(linked: linked) : .settingsPrompt(linked: linked)
        case .inform(let page):
            if page.isLabel { return .label }
            let (opens, linked) = (page.open != nil, page.link != nil)
            return page.presentation == .inline
                ? .inlineInform(opensSettings: opens, linked: linked) : .informPage(opensSettings: opens, linked: linked)
        case .none, .requestPermission, .openSettings, .dismiss:
            return nil
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

    /// Whether it carries a web link (`link`), which the user may open and come back to.
    public var isLinked: Bool {
        switch self {
        case .softPrompt(let linked), .settingsPrompt(let linked), .inlineSoftPrompt(let linked),
            .inlineSettingsPrompt(let linked), .informPage(_, let linked), .inlineInform(_, let linked):
            linked
        case .nothing, .systemDialog, .label: false
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
