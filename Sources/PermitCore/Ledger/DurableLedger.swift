/// The part of a ledger that survives a reinstall, as a `DurableStore` keeps it.
///
/// Versioned and small on purpose: it lives in one Keychain item, which outlives every build
/// of the app that wrote it, so a later build must be able to read (or knowingly refuse) it.
public struct DurableLedger: Sendable, Hashable, Codable {
    /// The layout written by this build; a newer one is ignored rather than misread.
    public static let currentVersion = 1

    /// The layout version this value was written with.
    public var version: Int
    /// The iOS 8–9 asked-flag (`Ledger.legacyRegistered`).
    public var legacyRegistered: Bool
    /// `ctx.history.soft_prompt`, when the policy keeps it.
    public var softPrompt: Ledger.SoftPromptHistory?
    /// `ctx.history.system_prompt`, when the policy keeps it.
    public var systemPrompt: Ledger.SystemPromptHistory?
    /// `ctx.history.settings_prompt`, when the policy keeps it.
    public var settingsPrompt: Ledger.SettingsPromptHistory?
    /// The durable keys of `ctx.state`.
    public var state: [String: PolicyValue]
    /// When the app was last seen running (its last launch, foreground or background), Unix
    /// seconds. It bounds how long the app can have been deleted: iOS forgets a notification
    /// answer once the app stays deleted for a day, so the asked-flag comes back only when the
    /// gap is shorter (docs/platform.md K-01).
    public var lastSeenAt: Int64?

    /// A durable part; empty by default.
    public init(
        legacyRegistered: Bool = false, softPrompt: Ledger.SoftPromptHistory? = nil,
        systemPrompt: Ledger.SystemPromptHistory? = nil, settingsPrompt: Ledger.SettingsPromptHistory? = nil,
        state: [String: PolicyValue] = [:], lastSeenAt: Int64? = nil
    ) {
        self.version = Self.currentVersion
        self.legacyRegistered = legacyRegistered
        self.softPrompt = softPrompt
        self.systemPrompt = systemPrompt
        self.settingsPrompt = settingsPrompt
        self.state = state
        self.lastSeenAt = lastSeenAt
    }

    /// Whether there is nothing worth storing: a fresh install writes no Keychain item (the
    /// time last seen alone is not worth an item).
    public var isEmpty: Bool {
        !legacyRegistered && softPrompt == nil && systemPrompt == nil && settingsPrompt == nil && state.isEmpty
    }

    private enum CodingKeys: String, CodingKey {
        case version
        case legacyRegistered = "legacy_registered"
        case softPrompt = "soft_prompt"
        case systemPrompt = "system_prompt"
        case settingsPrompt = "settings_prompt"
        case state
        case lastSeenAt = "last_seen_at"
    }
}
