/// The app's asking history (`ctx.history`, docs/reference/policy.md#ctx-history).
///
/// Counters only grow; times are Unix seconds or `nil`. The coding keys are the Lua names, so
/// the JSON store, a scenario's `initial.ledger` and `expect_ledger` paths all read the same.
/// Decoding is lenient about missing keys (a partial ledger is a valid starting point) and
/// strict about types.
public struct Ledger: Sendable, Hashable, Codable {
    /// The first `app_launch` this install, Unix seconds.
    public var firstLaunchAt: Int64?
    /// How many times the app was launched.
    public var launches: Int
    /// How many times it came to the foreground.
    public var foregrounds: Int
    /// The status at the last read.
    public var lastStatus: PermissionStatus
    /// When the status last changed.
    public var statusChangedAt: Int64?
    /// Set when the status becomes denied, cleared when it becomes granted.
    public var deniedAt: Int64?
    /// The iOS 8–9 asked-flag: the register callback fired after a request.
    public var legacyRegistered: Bool
    /// Prompts (soft, settings, system dialogs that appeared) on the local day `promptsDay`.
    public var promptsToday: Int
    /// The local day (`yyyy-MM-dd` in the device's time zone) that `promptsToday` counts.
    public var promptsDay: String?
    /// The app's own pre-prompt: how often shown and answered.
    public var softPrompt: SoftPromptHistory
    /// The system dialog: requests, appearances, the answer.
    public var systemPrompt: SystemPromptHistory
    /// The "open Settings?" prompt: how often shown and answered.
    public var settingsPrompt: SettingsPromptHistory
    /// The app's information pages (`inform`): how often shown and closed. No prompt: they
    /// count nothing in `promptsToday`.
    public var inform: InformHistory
    /// Per feature (`feature_opened`): how often opened, and when last prompted for.
    public var features: [String: FeatureHistory]
    /// What the policy remembered (`remember`), given back as `ctx.state`.
    public var state: [String: PolicyValue]
    /// The install's id, the seed of its experiment arms: the host's
    /// (`EngineConfiguration.installID`) or one the engine drew at the first event and keeps.
    public var installID: String?
    /// The arm of each experiment the policy declares (`ctx.user.arms`), kept across launches
    /// and policy versions by the rule of `ArmAssignment.reconcile`.
    public var arms: [String: String]
    /// Per event of the app's own (`AppEvent.custom`): how often it happened and when last.
    public var events: [String: EventHistory]
    /// The app's version the engine last saw (`EngineConfiguration.appVersion`), from which it
    /// tells the first process after an update (`ctx.app.previous_version`).
    public var appVersion: String?

    /// The most event names `events` keeps; a new name past it is refused (`problem(recordingEvent:)`).
    public static let maxEventNames = 64

    /// The most `state` may hold, counting key and value bytes.
    public static let stateByteLimit = 4096

    /// A fresh install's ledger: nothing happened yet.
    public init() {
        firstLaunchAt = nil
        launches = 0
        foregrounds = 0
        lastStatus = .unknown
        statusChangedAt = nil
        deniedAt = nil
        legacyRegistered = false
        promptsToday = 0
        promptsDay = nil
        softPrompt = SoftPromptHistory()
        systemPrompt = SystemPromptHistory()
        settingsPrompt = SettingsPromptHistory()
        inform = InformHistory()
        features = [:]
        state = [:]
        installID = nil
        arms = [:]
        events = [:]
        appVersion = nil
    }

    /// `events` as a policy that declares `declared` sees them: each declared name that has
    /// not happened yet counts 0 (with no `last_at`).
    public func events(including declared: [String]) -> [String: EventHistory] {
        guard declared.contains(where: { events[$0] == nil }) else { return events }
        // Sized once: the context encoder asks for this on every call, and copying `events`
        // then growing it for each missing name rehashed the table twice over.
        var all = [String: EventHistory](minimumCapacity: events.count + declared.count)
        for (name, history) in events { all[name] = history }
        for name in declared where all[name] == nil { all[name] = EventHistory() }
        return all
    }

    /// `ctx.history.events[name]`.
    public struct EventHistory: Sendable, Hashable, Codable {
        /// Times it happened.
        public var count = 0
        /// When it last happened.
        public var lastAt: Int64?

        /// Never happened.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case count
            case lastAt = "last_at"
        }

        /// Decodes leniently: a missing count is zero.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            count = try c.decodeIfPresent(Int.self, forKey: .count) ?? 0
            lastAt = try c.decodeIfPresent(Int64.self, forKey: .lastAt)
        }
    }

    /// `ctx.history.soft_prompt`.
    public struct SoftPromptHistory: Sendable, Hashable, Codable {
        /// Times shown.
        public var shown = 0
        /// Times accepted.
        public var accepted = 0
        /// Times declined.
        public var declined = 0
        /// Times dismissed without a choice.
        public var dismissed = 0
        /// When last shown.
        public var lastShownAt: Int64?
        /// When last answered.
        public var lastAnsweredAt: Int64?
        /// Times shown as an inline row (`presentation = "inline"`), apart from `shown`.
        public var inlineShown = 0
        /// Times the user acted on an inline row (`accept`), apart from `accepted`.
        public var inlineActed = 0
        /// Times the user opened the prompt's web link (`soft_prompt_answered` with `link`): the
        /// prompt stayed, so another answer closes it later.
        public var links = 0

        /// Never shown.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case shown, accepted, declined, dismissed, links
            case lastShownAt = "last_shown_at"
            case lastAnsweredAt = "last_answered_at"
            case inlineShown = "inline_shown"
            case inlineActed = "inline_acted"
        }

        /// Decodes leniently: a missing count is zero.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            accepted = try c.decodeIfPresent(Int.self, forKey: .accepted) ?? 0
            declined = try c.decodeIfPresent(Int.self, forKey: .declined) ?? 0
            dismissed = try c.decodeIfPresent(Int.self, forKey: .dismissed) ?? 0
            lastShownAt = try c.decodeIfPresent(Int64.self, forKey: .lastShownAt)
            lastAnsweredAt = try c.decodeIfPresent(Int64.self, forKey: .lastAnsweredAt)
            inlineShown = try c.decodeIfPresent(Int.self, forKey: .inlineShown) ?? 0
            inlineActed = try c.decodeIfPresent(Int.self, forKey: .inlineActed) ?? 0
            links = try c.decodeIfPresent(Int.self, forKey: .links) ?? 0
        }
    }

    /// `ctx.history.system_prompt`.
    public struct SystemPromptHistory: Sendable, Hashable, Codable {
        /// Requests the policy made that passed the guardrails.
        public var requested = 0
        /// Requests that showed the system dialog.
        public var shown = 0
        /// When the dialog was answered.
        public var answeredAt: Int64?
        /// The last answer, `nil` until there is one.
        public var granted: Bool?

        /// Never requested.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case requested, shown, granted
            case answeredAt = "answered_at"
        }

        /// Decodes leniently: a missing count is zero.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            requested = try c.decodeIfPresent(Int.self, forKey: .requested) ?? 0
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            answeredAt = try c.decodeIfPresent(Int64.self, forKey: .answeredAt)
            granted = try c.decodeIfPresent(Bool.self, forKey: .granted)
        }
    }

    /// `ctx.history.settings_prompt`.
    public struct SettingsPromptHistory: Sendable, Hashable, Codable {
        /// Times shown.
        public var shown = 0
        /// Times the user chose to open Settings.
        public var opened = 0
        /// Times cancelled.
        public var cancelled = 0
        /// When last shown.
        public var lastShownAt: Int64?
        /// Times shown as an inline row (`presentation = "inline"`), apart from `shown`.
        public var inlineShown = 0
        /// Times the user acted on an inline row (`open`), apart from `opened`.
        public var inlineActed = 0
        /// Times the user opened the prompt's web link (`settings_prompt_answered` with `link`):
        /// the prompt stayed, so another answer closes it later.
        public var links = 0

        /// Never shown.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case shown, opened, cancelled, links
            case lastShownAt = "last_shown_at"
            case inlineShown = "inline_shown"
            case inlineActed = "inline_acted"
        }

        /// Decodes leniently: a missing count is zero.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            opened = try c.decodeIfPresent(Int.self, forKey: .opened) ?? 0
            cancelled = try c.decodeIfPresent(Int.self, forKey: .cancelled) ?? 0
            lastShownAt = try c.decodeIfPresent(Int64.self, forKey: .lastShownAt)
            inlineShown = try c.decodeIfPresent(Int.self, forKey: .inlineShown) ?? 0
            inlineActed = try c.decodeIfPresent(Int.self, forKey: .inlineActed) ?? 0
            links = try c.decodeIfPresent(Int.self, forKey: .links) ?? 0
        }
    }

    /// `ctx.history.features[name]`.
    public struct FeatureHistory: Sendable, Hashable, Codable {
        /// Times opened.
        public var opened = 0
        /// When last opened.
        public var lastOpenedAt: Int64?
        /// When a prompt was last shown while this feature was open.
        public var lastPromptAt: Int64?

        /// Never opened.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case opened
            case lastOpenedAt = "last_opened_at"
            case lastPromptAt = "last_prompt_at"
        }

        /// Decodes leniently: a missing count is zero.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            opened = try c.decodeIfPresent(Int.self, forKey: .opened) ?? 0
            lastOpenedAt = try c.decodeIfPresent(Int64.self, forKey: .lastOpenedAt)
            lastPromptAt = try c.decodeIfPresent(Int64.self, forKey: .lastPromptAt)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case firstLaunchAt = "first_launch_at"
        case launches, foregrounds
        case lastStatus = "last_status"
        case statusChangedAt = "status_changed_at"
        case deniedAt = "denied_at"
        case legacyRegistered = "legacy_registered"
        case promptsToday = "prompts_today"
        case promptsDay = "prompts_day"
        case softPrompt = "soft_prompt"
        case systemPrompt = "system_prompt"
        case settingsPrompt = "settings_prompt"
        case inform
        case features, state, events
        case installID = "install_id"
        case arms
        case appVersion = "app_version"
    }

    /// Decodes leniently about missing keys (a partial ledger is a valid start), strictly about
    /// types.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        firstLaunchAt = try c.decodeIfPresent(Int64.self, forKey: .firstLaunchAt)
        launches = try c.decodeIfPresent(Int.self, forKey: .launches) ?? 0
        foregrounds = try c.decodeIfPresent(Int.self, forKey: .foregrounds) ?? 0
        lastStatus = try c.decodeIfPresent(PermissionStatus.self, forKey: .lastStatus) ?? .unknown
        statusChangedAt = try c.decodeIfPresent(Int64.self, forKey: .statusChangedAt)
        deniedAt = try c.decodeIfPresent(Int64.self, forKey: .deniedAt)
        legacyRegistered = try c.decodeIfPresent(Bool.self, forKey: .legacyRegistered) ?? false
        promptsToday = try c.decodeIfPresent(Int.self, forKey: .promptsToday) ?? 0
        promptsDay = try c.decodeIfPresent(String.self, forKey: .promptsDay)
        softPrompt = try c.decodeIfPresent(SoftPromptHistory.self, forKey: .softPrompt) ?? SoftPromptHistory()
        systemPrompt = try c.decodeIfPresent(SystemPromptHistory.self, forKey: .systemPrompt) ?? SystemPromptHistory()
        settingsPrompt =
            try c.decodeIfPresent(SettingsPromptHistory.self, forKey: .settingsPrompt)
            ?? SettingsPromptHistory()
        inform = try c.decodeIfPresent(InformHistory.self, forKey: .inform) ?? InformHistory()
        features = try c.decodeIfPresent([String: FeatureHistory].self, forKey: .features) ?? [:]
        state = try c.decodeIfPresent([String: PolicyValue].self, forKey: .state) ?? [:]
        installID = try c.decodeIfPresent(String.self, forKey: .installID)
        arms = try c.decodeIfPresent([String: String].self, forKey: .arms) ?? [:]
        events = try c.decodeIfPresent([String: EventHistory].self, forKey: .events) ?? [:]
        appVersion = try c.decodeIfPresent(String.self, forKey: .appVersion)
    }
}
