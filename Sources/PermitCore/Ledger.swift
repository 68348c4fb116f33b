/// The app's asking history (`ctx.history`, docs/reference.md#ctx-history).
///
/// Counters only grow; times are Unix seconds or `nil`. The coding keys are the Lua names, so
/// the JSON store, a scenario's `initial.ledger` and `expect_ledger` paths all read the same.
/// Decoding is lenient about missing keys (a partial ledger is a valid starting point) and
/// strict about types.
public struct Ledger: Sendable, Hashable, Codable {
    public var firstLaunchAt: Int64?
    public var launches: Int
    public var foregrounds: Int
    public var lastStatus: PermissionStatus
    public var statusChangedAt: Int64?
    /// Set when the status becomes denied, cleared when it becomes granted.
    public var deniedAt: Int64?
    /// The iOS 8–9 asked-flag: the register callback fired after a request.
    public var legacyRegistered: Bool
    /// Prompts (soft, settings, system dialogs that appeared) on the local day `promptsDay`.
    public var promptsToday: Int
    /// The local day (`yyyy-MM-dd` in the device's time zone) that `promptsToday` counts.
    public var promptsDay: String?
    public var softPrompt: SoftPromptHistory
    public var systemPrompt: SystemPromptHistory
    public var settingsPrompt: SettingsPromptHistory
    public var features: [String: FeatureHistory]
    /// What the policy remembered (`remember`), given back as `ctx.state`.
    public var state: [String: PolicyValue]

    /// The most `state` may hold, counting key and value bytes.
    public static let stateByteLimit = 4096

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
        features = [:]
        state = [:]
    }

    public struct SoftPromptHistory: Sendable, Hashable, Codable {
        public var shown = 0
        public var accepted = 0
        public var declined = 0
        public var dismissed = 0
        public var lastShownAt: Int64?
        public var lastAnsweredAt: Int64?

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case shown, accepted, declined, dismissed
            case lastShownAt = "last_shown_at"
            case lastAnsweredAt = "last_answered_at"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            accepted = try c.decodeIfPresent(Int.self, forKey: .accepted) ?? 0
            declined = try c.decodeIfPresent(Int.self, forKey: .declined) ?? 0
            dismissed = try c.decodeIfPresent(Int.self, forKey: .dismissed) ?? 0
            lastShownAt = try c.decodeIfPresent(Int64.self, forKey: .lastShownAt)
            lastAnsweredAt = try c.decodeIfPresent(Int64.self, forKey: .lastAnsweredAt)
        }
    }

    public struct SystemPromptHistory: Sendable, Hashable, Codable {
        /// Requests the policy made that passed the guardrails.
        public var requested = 0
        /// Requests that showed the system dialog.
        public var shown = 0
        public var answeredAt: Int64?
        /// The last answer, `nil` until there is one.
        public var granted: Bool?

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case requested, shown, granted
            case answeredAt = "answered_at"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            requested = try c.decodeIfPresent(Int.self, forKey: .requested) ?? 0
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            answeredAt = try c.decodeIfPresent(Int64.self, forKey: .answeredAt)
            granted = try c.decodeIfPresent(Bool.self, forKey: .granted)
        }
    }

    public struct SettingsPromptHistory: Sendable, Hashable, Codable {
        public var shown = 0
        public var opened = 0
        public var cancelled = 0
        public var lastShownAt: Int64?

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case shown, opened, cancelled
            case lastShownAt = "last_shown_at"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            opened = try c.decodeIfPresent(Int.self, forKey: .opened) ?? 0
            cancelled = try c.decodeIfPresent(Int.self, forKey: .cancelled) ?? 0
            lastShownAt = try c.decodeIfPresent(Int64.self, forKey: .lastShownAt)
        }
    }

    public struct FeatureHistory: Sendable, Hashable, Codable {
        public var opened = 0
        public var lastOpenedAt: Int64?
        /// When a prompt was last shown while this feature was open.
        public var lastPromptAt: Int64?

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case opened
            case lastOpenedAt = "last_opened_at"
            case lastPromptAt = "last_prompt_at"
        }

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
        case features, state
    }

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
        settingsPrompt = try c.decodeIfPresent(SettingsPromptHistory.self, forKey: .settingsPrompt)
            ?? SettingsPromptHistory()
        features = try c.decodeIfPresent([String: FeatureHistory].self, forKey: .features) ?? [:]
        state = try c.decodeIfPresent([String: PolicyValue].self, forKey: .state) ?? [:]
    }
}
