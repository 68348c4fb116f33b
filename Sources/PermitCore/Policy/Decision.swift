/// What a policy decided for one event.
public struct Decision: Sendable, Hashable {
    /// The UX to show.
    public var action: Action
    /// Why, in the policy's words; shown by explain output.
    public var reason: String?
    /// Keys to store in `ctx.state` (a `nil` value deletes the key). Scalars only, 4 KiB in all.
    public var remember: [String: PolicyValue?]
    /// `cancel_reminders = true`: remove every pending reminder of the policy (for example on
    /// a denial), and plan none for this event.
    public var cancelReminders = false
    /// `remote_registration`: what the host does about remote notifications after this event;
    /// `nil` follows Apple's guidance (`Outcome.registersForRemoteNotifications`).
    public var remoteRegistration: RemoteRegistration?
    /// `cap_exempt`: why this prompt may be shown past the host's daily cap (a safety alert a
    /// medical app must not hold back); recorded in the decision record. `nil` for the rest.
    public var capExempt: String?
    /// `notify`: a local notification to post now (delivered at once, docs/platform.md N-04),
    /// whatever the action; in the outcome, its texts localised. `nil` for none.
    public var notify: NotificationRequest? {
        get { notifyStorage.first }
        set { notifyStorage = newValue.map { [$0] } ?? [] }
    }
    /// Held in an array, one pointer wide and unallocated while empty: most decisions post
    /// nothing, and an inline request would widen every `Decision` and `Outcome` the engine
    /// copies on each event (the prompts are boxed for the same reason).
    private var notifyStorage: [NotificationRequest] = []
    /// `row`: what becomes of the app's inline row along with `action`: an inline soft prompt,
    /// settings prompt or information row in place of the row there, beneath the modal when
    /// the action shows one (Loop's status row under its warning alert, both from one check),
    /// or `dismiss`, the row taken away and the modal left. `nil`: the row stays as it is.
    public var row: Action? {
        get { rowStorage.first }
        set { rowStorage = newValue.map { [$0] } ?? [] }
    }
    /// In an array for the reason `notify` is.
    private var rowStorage: [Action] = []

    /// A decision to carry out `action`, with the policy's reason and what it wants remembered.
    public init(_ action: Action, reason: String? = nil, remember: [String: PolicyValue?] = [:]) {
        self.action = action
        self.reason = reason
        self.remember = remember
    }

    /// Nothing to show: the answer when a policy returns `nil`, or a guardrail voided its decision.
    public static let none = Decision(.none)

    /// The UX to show. The prompts are boxed (`indirect`): most decisions are `none`, and
    /// boxing keeps every `Decision` and `Outcome` small to copy on every event (the figures
    /// are in docs/performance.md).
    public enum Action: Sendable, Hashable {
        /// Show nothing.
        case none
        /// Show the app's own pre-prompt first: a "no" there costs nothing, a "no" in the system
        /// dialog is final.
        indirect case softPrompt(SoftPrompt)
        /// Ask iOS: the system dialog (or, where none can appear, its answer at once).
        case requestPermission(options: [AuthorizationOption])
        /// Offer to open Settings: after a denial, the only way back.
        indirect case settingsPrompt(SettingsPrompt)
        /// Open Settings at once, at this page (the core falls back to the app's page where the
        /// notification page cannot be linked): the answer to a tap of the user's, never to a
        /// launch or a return to the foreground (the `open-settings-not-user-initiated` guardrail).
        case openSettings(DeepLink)
        /// An information page of the app's own with one button, and perhaps a second that opens
        /// Settings and leaves the page up (or, inline, a row or a label): it tells rather than
        /// asks, so it is no prompt, whatever the status.
        indirect case inform(InformPage)
        /// Take the app's own prompt, row or page off screen (the state it spoke of changed);
        /// with nothing on screen it does nothing.
        case dismiss

        /// The action's name as policies write it.
        public var name: String {
            switch self {
            case .none: "none"
            case .softPrompt: "soft_prompt"
            case .requestPermission: "request_permission"
            case .settingsPrompt: "settings_prompt"
            case .openSettings: "open_settings"
            case .inform: "inform"
            case .dismiss: "dismiss"
            }
        }

        /// Every action's Lua name, for validation and help texts.
        public static let names = [
            "none", "soft_prompt", "request_permission", "settings_prompt", "open_settings", "inform", "dismiss",
        ]

        /// Whether the action is a row inside one of the app's screens (`presentation =
        /// "inline"`): nothing the user must answer, not a prompt for the daily cap, counted
        /// apart in the history.
        public var isInline: Bool {
            switch self {
            case .softPrompt(let prompt): prompt.presentation == .inline
            case .settingsPrompt(let prompt): prompt.presentation == .inline
            case .inform(let page): page.presentation == .inline
            case .none, .requestPermission, .openSettings, .dismiss: false
            }
        }

        /// The web link on the prompt, row or page this action shows (`link` and `url`), or `nil`.
        public var link: WebLink? {
            switch self {
            case .softPrompt(let prompt): prompt.link
            case .settingsPrompt(let prompt): prompt.link
            case .inform(let page): page.link
            case .none, .requestPermission, .openSettings, .dismiss: nil
            }
        }

        /// The `id` the policy gave the prompt, row or page this action shows, which the answer
        /// to it carries back (`ctx.event.prompt_id`); `nil` for the other actions.
        public var promptID: String? {
            switch self {
            case .softPrompt(let prompt): prompt.id
            case .settingsPrompt(let prompt): prompt.id
            case .inform(let page): page.id
            case .none, .requestPermission, .openSettings, .dismiss: nil
            }
        }
    }
}

/// What the host does about remote notifications (APNs) after an event: the decision's
/// `remote_registration`.
public enum RemoteRegistration: String, Sendable, Codable, CaseIterable {
    /// Call `registerForRemoteNotifications()` now.
    case register
    /// Call `unregisterForRemoteNotifications()` now (for an app whose own switch turns pushes off).
    case unregister
    /// Do neither this time, whatever the default would do.
    case keep
}

/// How the app presents a prompt of its own.
public enum Presentation: String, Sendable, Codable, CaseIterable {
    /// A standard alert, a banner inside the app, or a sheet.
    case alert, banner, sheet
    /// A row or button inside one of the app's screens: on screen while that screen is, with
    /// nothing the user must answer; it needs no `decline` or `cancel` text.
    case inline
}

/// The app's own "may we send you notifications?" screen, shown before the system dialog.
public struct SoftPrompt: Sendable, Hashable {
    /// The prompt's title.
    public var title: LocalizedText
    /// Why notifications help the user, in a sentence or two.
    public var message: LocalizedText
    /// The button that leads to the system dialog.
    public var accept: LocalizedText
    /// The button that keeps the system dialog unasked (and askable later); `nil` for an
    /// inline row, which has none.
    public var decline: LocalizedText?
    /// How the app presents it.
    public var presentation: Presentation
    /// A copy identifier for A/B tests.
    public var variant: String?
    /// `id`: which prompt this is, for the policy that shows several; its answer carries it
    /// back as `ctx.event.prompt_id`.
    public var id: String?
    /// `link` and `url`: a link to a web page beside the buttons; tapping it leaves the prompt
    /// on screen (the answer `link`).
    public var link: WebLink?

    /// A soft prompt with its texts; `variant` names the copy for A/B reports.
    public init(
        title: LocalizedText, message: LocalizedText, accept: LocalizedText, decline: LocalizedText?,
        presentation: Presentation = .alert, variant: String? = nil, id: String? = nil, link: WebLink? = nil
    ) {
        self.id = id
        self.link = link
        self.title = title
        self.message = message
        self.accept = accept
        self.decline = decline
        self.presentation = presentation
        self.variant = variant
    }
}

/// Which Settings page a settings prompt opens. Only Apple's public URLs: `App-Prefs:` and
/// `prefs:root=` are private API and get an app rejected, so they cannot be expressed.
public enum DeepLink: String, Sendable, Codable, CaseIterable {
    /// `UIApplication.openSettingsURLString` (iOS 8+): the app's own Settings page.
    case appSettings = "app_settings"
    /// `UIApplicationOpenNotificationSettingsURLString` (iOS 15.4+): its notification settings.
    case notificationSettings = "notification_settings"
}

/// The app's "notifications are off; open Settings?" prompt.
public struct SettingsPrompt: Sendable, Hashable {
    /// The prompt's title.
    public var title: LocalizedText
    /// What is off and what turning it on gives the user.
    public var message: LocalizedText
    /// The button that opens Settings at `deepLink`; `nil` for an inline row that is its own
    /// button (the whole row opens Settings, and its answer is still `open`).
    public var open: LocalizedText?
    /// The button that leaves things as they are; `nil` for an inline row, which has none.
    public var cancel: LocalizedText?
    /// How the app presents it.
    public var presentation: Presentation
    /// Which Settings page to open; the core falls back to the app's page where the
    /// notification page cannot be linked (below iOS 15.4).
    public var deepLink: DeepLink
    /// `for_setting`: the one setting the prompt asks the user to turn on (Time Sensitive,
    /// critical alerts); the `settings-prompt-pointless` guardrail judges it instead of alerts.
    /// `nil`: the prompt is about notifications as a whole.
    public var forSetting: NotificationSettings.Setting?
    /// `id`: which prompt this is; its answer carries it back as `ctx.event.prompt_id`.
    public var id: String?
    /// `link` and `url`: a link to a web page beside the buttons; tapping it leaves the prompt
    /// on screen (the answer `link`).
    public var link: WebLink?
    /// `rows`: the settings' names and values below the message (Notifications · On), which
    /// the app lays out as a list; empty for none.
    public var rows: [InfoRow]

    /// A settings prompt with its texts and the page to open.
    public init(
        title: LocalizedText, message: LocalizedText, open: LocalizedText?, cancel: LocalizedText?,
        presentation: Presentation = .alert, deepLink: DeepLink = .appSettings,
        forSetting: NotificationSettings.Setting? = nil, id: String? = nil, link: WebLink? = nil, rows: [InfoRow] = []
    ) {
        self.id = id
        self.link = link
        self.rows = rows
        self.title = title
        self.message = message
        self.open = open
        self.cancel = cancel
        self.presentation = presentation
        self.deepLink = deepLink
        self.forSetting = forSetting
    }
}
