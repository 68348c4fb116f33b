/// The app's information page (`action = "inform"`): it tells the user something (what an
/// alert means, what a new version does) and asks nothing, so it has one button and is shown
/// whatever the status. It is no prompt: no daily cap, no guardrail that voids a prompt no
/// dialog can follow.
///
/// A page may carry a second button, `open`, that opens Settings at `deepLink` while the page
/// stays on screen ("Open Device Settings" beside "Continue"): the user comes back to it, and
/// `ok` or `dismiss` closes it later.
///
/// Inline (`presentation = "inline"`), it is a row on one of the app's screens; a row without
/// a `button` is a label, with nothing to tap, and needs only its `title`.
public struct InformPage: Sendable, Hashable {
    /// The page's title (a label's only text).
    public var title: LocalizedText
    /// What the page says; required on a page, optional on a row.
    public var message: LocalizedText?
    /// The button that closes it (OK, Got it); required on a page, `nil` for a label row.
    public var button: LocalizedText?
    /// `open`: the second button, which opens Settings at `deepLink` and leaves the page on
    /// screen; `nil` for a page with its one button. Only beside a `button`.
    public var open: LocalizedText?
    /// Which Settings page `open` opens; the core falls back to the app's page where the
    /// notification page cannot be linked (below iOS 15.4), as for a settings prompt.
    public var deepLink: DeepLink
    /// How the app presents it: a dialog (`alert`, `sheet`, `banner`) or a row (`inline`).
    public var presentation: Presentation
    /// `id`: which page this is; its answer carries it back as `ctx.event.prompt_id`.
    public var id: String?
    /// `link` and `url`: a link to a web page, which leaves the page on screen (the answer
    /// `link`); only beside a `button` (a label has nothing to tap).
    public var link: WebLink?
    /// `rows`: names and values the page lists below its message (Notifications · On); empty
    /// for none.
    public var rows: [InfoRow]

    /// A page with its texts; a row (`.inline`) may leave out `message` and `button`. `open`
    /// (with `deepLink`) adds the button that opens Settings.
    public init(
        title: LocalizedText, message: LocalizedText?, button: LocalizedText?, open: LocalizedText? = nil,
        deepLink: DeepLink = .appSettings, presentation: Presentation = .alert, id: String? = nil, link: WebLink? = nil,
        rows: [InfoRow] = []
    ) {
        self.link = link
        self.rows = rows
        self.title = title
        self.message = message
        self.button = button
        self.open = open
        self.deepLink = deepLink
        self.presentation = presentation
        self.id = id
    }

    /// Whether this is a label: a row with nothing to tap, which no event answers.
    public var isLabel: Bool { presentation == .inline && button == nil }
}
