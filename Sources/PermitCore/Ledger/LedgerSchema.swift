/// The ledger's field names as policies and scenario files see them, so tools can validate a
/// partial ledger or a dotted path (`soft_prompt.shown`) and suggest the right name.
/// A test checks this against what `Ledger` actually encodes.
extension Ledger {
    /// The ledger's top-level keys.
    public static let topLevelFields = [
        "first_launch_at", "launches", "foregrounds", "last_status", "status_changed_at", "denied_at",
        "legacy_registered", "prompts_today", "prompts_day", "soft_prompt", "system_prompt", "settings_prompt", "inform",
        "features", "state", "install_id", "arms", "events", "app_version",
    ]

    /// Fields of the nested tables; `features` maps any feature name to `featureFields`.
    public static let nestedFields: [String: [String]] = [
        "soft_prompt": [
            "shown", "accepted", "declined", "dismissed", "last_shown_at", "last_answered_at", "inline_shown", "inline_acted",
            "links",
        ],
        "system_prompt": ["requested", "shown", "answered_at", "granted"],
        "settings_prompt": ["shown", "opened", "cancelled", "last_shown_at", "inline_shown", "inline_acted", "links"],
        "inform": ["shown", "ok", "dismissed", "opened", "links", "last_shown_at"],
    ]

    /// The keys of each `features` entry.
    public static let featureFields = ["opened", "last_opened_at", "last_prompt_at"]

    /// The keys of each `events` entry.
    public static let eventFields = ["count", "last_at"]
}
