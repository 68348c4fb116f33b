// Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
// (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

extension FastPath {
    /// Every key and enum value `ctx` holds, interned once per VM (a sequence in the registry)
    /// so that a key costs one `lua_rawgeti` instead of hashing its text on every call: ctx's
    /// eager keys, the event's fields, and the values those fields take (the lazy fields'
    /// names are `LazyContext.c`'s, generated in `lazy_names.generated.h`).
    enum Key: Int32, CaseIterable {
        case event = 1
        case now
        case params
        case previousStatus
        case status
        case name
        case feature
        case answer
        case granted
        case promptId
        case timeZone
        case properties
        case appLaunch
        case appForeground
        case appBackground
        case featureOpened
        case featureClosed
        case softPromptAnswered
        case systemPromptAnswered
        case settingsPromptAnswered
        case informAnswered
        case significantTimeChange
        case notificationSettingsOpened
        case backgroundRefresh
        case accept
        case decline
        case dismiss
        case open
        case cancel
        case ok
        case link
        case unknown
        case notDetermined
        case denied
        case authorized
        case provisional
        case ephemeral
        case enabled
        case disabled
        case notSupported

        /// The name as Lua spells it.
        var text: String {
            switch self {
            case .event: "event"
            case .now: "now"
            case .params: "params"
            case .previousStatus: "previous_status"
            case .status: "status"
            case .name: "name"
            case .feature: "feature"
            case .answer: "answer"
            case .granted: "granted"
            case .promptId: "prompt_id"
            case .timeZone: "time_zone"
            case .properties: "properties"
            case .appLaunch: "app_launch"
            case .appForeground: "app_foreground"
            case .appBackground: "app_background"
            case .featureOpened: "feature_opened"
            case .featureClosed: "feature_closed"
            case .softPromptAnswered: "soft_prompt_answered"
            case .systemPromptAnswered: "system_prompt_answered"
            case .settingsPromptAnswered: "settings_prompt_answered"
            case .informAnswered: "inform_answered"
            case .significantTimeChange: "significant_time_change"
            case .notificationSettingsOpened: "notification_settings_opened"
            case .backgroundRefresh: "background_refresh"
            case .accept: "accept"
            case .decline: "decline"
            case .dismiss: "dismiss"
            case .open: "open"
            case .cancel: "cancel"
            case .ok: "ok"
            case .link: "link"
            case .unknown: "unknown"
            case .notDetermined: "not_determined"
            case .denied: "denied"
            case .authorized: "authorized"
            case .provisional: "provisional"
            case .ephemeral: "ephemeral"
            case .enabled: "enabled"
            case .disabled: "disabled"
            case .notSupported: "not_supported"
            }
        }
    }
}
