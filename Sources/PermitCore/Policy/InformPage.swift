/// The app's information page (`action = "inform"`): it tells the user something (what an
/// alert means, what a new version does) and asks nothing, so it has one button and is shown
/// whatever the status. It is no prompt: no daily cap, no guardrail that voids a prompt no
/// dialog can follow.
///
/// Inline (`presentation = "inline"`), it is a row on one of the app's screens; a row without
/// a `button` is a label, with nothing to tap, and needs only its `title`.
public struct InformPage: Sendable, Hashable {
    /// The page's title (a label's only text).
    public var title: LocalizedText
    /// What the page says; required on a page, optional on a row.
    public var message: LocalizedText?
    /// The one button (OK, Got it); required on a page, `nil` for a label row.
    public var button: LocalizedText?
    /// How the app presents it: a dialog (`alert`, `sheet`, `banner`) or a row (`inline`).
    public var presentation: Presentation
    /// `id`: which page this is; its answer carries it back as `ctx.event.prompt_id`.
    public var id: String?

    /// A page with its texts; a row (`.inline`) may leave out `message` and `button`.
    public init(
        title: LocalizedText, message: LocalizedText?, button: LocalizedText?, presentation: Presentation = .alert,
        id: String? = nil
    ) {
        self.title = title
        self.message = message
        self.button = button
        self.presentation = presentation
        self.id = id
    }

    /// Whether this is a label: a row with nothing to tap, which no event answers.
    public var isLabel: Bool { presentation == .inline && button == nil }
}
