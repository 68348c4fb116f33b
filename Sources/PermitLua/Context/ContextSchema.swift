import PermitCore

/// The one home of the names a policy meets: `ctx` and its tables, the fields of a decision and
/// of a reminder, and the values its enumerations take.
///
/// Why one home: these names are spelled wherever Lua and Swift meet, and a field added in one
/// place and forgotten in another is a policy that works on one path and not the other. So
/// every other spelling comes from here:
///
/// - `DecisionReader`, which validates what a policy returns and words every error on either
///   path, and `StrictContext`, which gives the C side its strict tables' names when a VM is made, read
///   their lists from here at run time.
/// - The warm path's interned keys (`FastPath.Key`), the lazy builder's key names
///   (`LazyContext.c`) and the in-place decision reader's codes and tables (`FastPath.c`: the
///   decision's fields, the actions, the fields each action takes) are generated from here into
///   checked-in files (`FastPathKey.generated.swift`, `lazy_names.generated.h`,
///   `include/permit_decision.generated.h`, `decision_fields.generated.h`) by `make generate`;
///   the repository's tests (GeneratedFilesTests) fail while they differ, and code using a renamed name stops compiling.
/// - The editor annotations (`types/permit.lua`, which carry notes for policy authors) and
///   the reference (docs/reference.md) are checked against this schema by tests that name the
///   missing or extra field.
///
/// Nothing here runs per event: the generated tables are interned once per VM.
public enum ContextSchema {
    /// One field of a Lua table a policy reads or returns.
    public struct Field: Sendable, Hashable {
        /// The key as Lua spells it (`previous_status`).
        public let name: String
        /// The type as `types/permit.lua` spells it for the Lua language server: a Lua type
        /// (`integer`, `boolean`, `string`), an alias or class below (`PermitStatus`,
        /// `PermitHistory`), or a map (`table<string, PermitFeatureHistory>`).
        public let type: String
        /// Whether the field may be absent (nil).
        public let optional: Bool

        init(_ name: String, _ type: String, optional: Bool = false) {
            self.name = name
            self.type = type
            self.optional = optional
        }
    }

    /// A table shape: a `---@class` of `types/permit.lua`.
    public struct Record: Sendable {
        /// The class name (`PermitHistory`).
        public let name: String
        /// Its fields, in the order the annotations list them.
        public let fields: [Field]

        /// The field called `name`, if the record has one.
        public subscript(name: String) -> Field? { fields.first { $0.name == name } }
    }

    // MARK: Enumerations (`---@alias`)

    // The values below are the core's own names; the schema reads them rather than spelling them
    // again, so a status, setting value or event added in PermitCore reaches the generated files.
    /// `ctx.status`, `ctx.previous_status`, `history.last_status`.
    public static let statuses = PermissionStatus.allCases.map(\.rawValue)
    /// Each `ctx.settings` field.
    public static let settingValues = SettingValue.allCases.map(\.rawValue)
    /// `ctx.event.name`.
    public static let eventNames = AppEvent.names
    /// `ctx.event.answer`: a soft prompt's (`accept`, `decline`, `dismiss`), a settings
    /// prompt's (`open`, `cancel`, `dismiss`) or an information page's (`ok`, `dismiss`, and
    /// `open` for its Settings button); `link` for the web link any of them may carry.
    public static let answers = ["accept", "decline", "dismiss", "open", "cancel", "ok", "link"]
    /// A decision's `action`.
    public static let actions = Decision.Action.names

    /// The aliases `types/permit.lua` declares for these lists (the last three are the core's
    /// own enumerations, whose raw values are their Lua names).
    public static let aliases: [String: [String]] = [
        "PermitStatus": statuses, "PermitSettingValue": settingValues, "PermitEventName": eventNames,
        "PermitAction": actions, "PermitPresentation": Presentation.allCases.map(\.rawValue),
        "PermitDeepLink": DeepLink.allCases.map(\.rawValue), "PermitOption": AuthorizationOption.allCases.map(\.rawValue),
        "PermitInterruptionLevel": InterruptionLevel.allCases.map(\.rawValue),
        "PermitRemoteRegistration": RemoteRegistration.allCases.map(\.rawValue),
        "PermitSettingName": NotificationSettings.Setting.allCases.map(\.rawValue),
    ]

    // MARK: ctx

    /// `ctx.event`: the name, and the one extra field its kind carries: a built-in event's
    /// `feature`, `answer` or `granted`, an app event's `properties`.
    public static let event = Record(
        name: "PermitEvent",
        fields: [
            Field("name", "PermitEventName|string"),
            Field("feature", "string", optional: true),
            Field("answer", #""accept"|"decline"|"dismiss"|"open"|"cancel"|"ok"|"link""#, optional: true),
            Field("granted", "boolean", optional: true),
            Field("prompt_id", "string", optional: true),
            Field("time_zone", "string", optional: true),
            Field("properties", "table<string, PermitScalar>", optional: true),
        ])

    /// `ctx.settings`: each iOS notification setting, and the app's Live Activities switch
    /// (iOS 16.1+), which the user sets in Settings too but no notification answer changes.
    public static let settings = Record(
        name: "PermitSettings",
        fields: [
            "alert", "sound", "badge", "lock_screen", "notification_center", "car_play", "critical_alert",
            "time_sensitive", "scheduled_delivery", "live_activities",
        ].map { Field($0, "PermitSettingValue") })

    /// `ctx.platform` (read-only).
    public static let platform = Record(
        name: "PermitPlatform",
        fields: [
            Field("os", #""ios""#), Field("version", "string"), Field("major", "integer"), Field("minor", "integer"),
            Field("patch", "integer"),
        ])

    /// `ctx.capabilities` (read-only): what the iOS version allows.
    public static let capabilities = Record(
        name: "PermitCapabilities",
        fields: [
            "user_notifications", "provisional", "ephemeral", "notification_settings_link", "time_sensitive",
        ].map { Field($0, "boolean") })

    /// `ctx.history.soft_prompt`.
    public static let softPromptHistory = Record(
        name: "PermitSoftPromptHistory",
        fields: [
            Field("shown", "integer"), Field("accepted", "integer"), Field("declined", "integer"),
            Field("dismissed", "integer"), Field("last_shown_at", "integer", optional: true),
            Field("last_answered_at", "integer", optional: true), Field("inline_shown", "integer"),
            Field("inline_acted", "integer"), Field("links", "integer"),
        ])

    /// `ctx.history.system_prompt`.
    public static let systemPromptHistory = Record(
        name: "PermitSystemPromptHistory",
        fields: [
            Field("requested", "integer"), Field("shown", "integer"), Field("answered_at", "integer", optional: true),
            Field("granted", "boolean", optional: true),
        ])

    /// `ctx.history.settings_prompt`.
    public static let settingsPromptHistory = Record(
        name: "PermitSettingsPromptHistory",
        fields: [
            Field("shown", "integer"), Field("opened", "integer"), Field("cancelled", "integer"),
            Field("last_shown_at", "integer", optional: true), Field("inline_shown", "integer"),
            Field("inline_acted", "integer"), Field("links", "integer"),
        ])

    /// `ctx.history.inform`: the app's information pages and label rows.
    public static let informHistory = Record(
        name: "PermitInformHistory",
        fields: [
            Field("shown", "integer"), Field("ok", "integer"), Field("dismissed", "integer"),
            Field("opened", "integer"), Field("links", "integer"), Field("last_shown_at", "integer", optional: true),
        ])

    /// Each `ctx.history.features[name]`.
    public static let featureHistory = Record(
        name: "PermitFeatureHistory",
        fields: [
            Field("opened", "integer"), Field("last_opened_at", "integer", optional: true),
            Field("last_prompt_at", "integer", optional: true),
        ])

    /// Each `ctx.history.events[name]`: an app event of the app's own.
    public static let eventHistory = Record(
        name: "PermitEventHistory",
        fields: [
            Field("count", "integer"), Field("last_at", "integer", optional: true),
        ])

    /// `ctx.history`: the ledger.
    public static let history = Record(
        name: "PermitHistory",
        fields: [
            Field("first_launch_at", "integer", optional: true), Field("launches", "integer"),
            Field("foregrounds", "integer"), Field("last_status", "PermitStatus"),
            Field("status_changed_at", "integer", optional: true), Field("denied_at", "integer", optional: true),
            Field("legacy_registered", "boolean"), Field("prompts_today", "integer"),
            Field("soft_prompt", "PermitSoftPromptHistory"), Field("system_prompt", "PermitSystemPromptHistory"),
            Field("settings_prompt", "PermitSettingsPromptHistory"), Field("inform", "PermitInformHistory"),
            Field("features", "table<string, PermitFeatureHistory>"), Field("state", "table<string, PermitScalar>"),
            Field("events", "table<string, PermitEventHistory>"),
        ])

    /// `ctx.user`.
    public static let user = Record(
        name: "PermitUser",
        fields: [
            Field("bucket", "integer"), Field("arms", "table<string, string>"),
        ])

    /// `ctx.local_time`: the wall clock in the device's zone (`local` itself is a Lua keyword,
    /// so `ctx.local` could not be written).
    public static let localTime = Record(
        name: "PermitLocalTime",
        fields: [
            Field("date", "string"), Field("hour", "integer"), Field("minute", "integer"), Field("weekday", "integer"),
            Field("timezone", "string"),
        ])

    /// `ctx.app` (read-only): the app's version, the one before it in the first process after
    /// an update, and the app's name as the host gave it.
    public static let app = Record(
        name: "PermitApp",
        fields: [
            Field("version", "string", optional: true), Field("previous_version", "string", optional: true),
            Field("name", "string", optional: true),
        ])

    /// `ctx` itself.
    public static let context = Record(
        name: "PermitContext",
        fields: [
            Field("event", "PermitEvent"), Field("status", "PermitStatus"), Field("previous_status", "PermitStatus"),
            Field("settings", "PermitSettings"), Field("platform", "PermitPlatform"),
            Field("capabilities", "PermitCapabilities"), Field("history", "PermitHistory"),
            Field("state", "table<string, PermitScalar>"), Field("params", "table<string, any>"),
            Field("now", "integer"), Field("locale", "string"), Field("user", "PermitUser"),
            Field("local_time", "PermitLocalTime"), Field("app", "PermitApp"),
        ])

    /// The `ctx` fields built on first use from a snapshot (`LazyContext.c`); the others are
    /// set when ctx is pushed. `platform`, `capabilities`, `locale` and `app` are stored values
    /// the snapshot holds: few policies read them, and setting them cost a table write each an event.
    public static let lazyContextFields = [
        "history", "settings", "state", "user", "local_time", "platform", "capabilities", "locale", "app",
    ]

    // MARK: What a policy returns

    /// What `decide` returns.
    public static let decision = Record(
        name: "PermitDecision",
        fields: [
            Field("action", "PermitAction"), Field("reason", "string", optional: true),
            Field("remember", "table<string, PermitScalar>", optional: true),
            Field("title", "PermitText", optional: true), Field("message", "PermitText", optional: true),
            Field("accept", "PermitText", optional: true), Field("decline", "PermitText", optional: true),
            Field("open", "PermitText", optional: true), Field("cancel", "PermitText", optional: true),
            Field("presentation", "PermitPresentation", optional: true), Field("variant", "string", optional: true),
            Field("options", "PermitOption[]", optional: true), Field("deep_link", "PermitDeepLink", optional: true),
            Field("cancel_reminders", "boolean", optional: true),
            Field("remote_registration", "PermitRemoteRegistration", optional: true),
            Field("cap_exempt", "string", optional: true), Field("for_setting", "PermitSettingName", optional: true),
            Field("button", "PermitText", optional: true), Field("id", "string", optional: true),
            Field("link", "PermitText", optional: true), Field("url", "PermitText", optional: true),
            Field("rows", "PermitRow[]", optional: true),
            Field("notify", "PermitNotification", optional: true), Field("row", "PermitDecision", optional: true),
        ])

    /// Each entry of a settings prompt's or a page's `rows`.
    public static let row = Record(
        name: "PermitRow", fields: [Field("name", "PermitText"), Field("value", "PermitText")])

    /// The decision fields every action takes.
    ///
    /// With `decisionFieldsByAction` and `actions`, the one definition of what a decision may
    /// hold, for both readers: `DecisionReader` (which words every error) reads these lists, and
    /// the warm path's in-place reader (`FastPath.c`) gets its field codes, names, action names
    /// and allowed-field masks generated from them (`make generate`).
    public static let commonDecisionFields = [
        "action", "reason", "remember", "cancel_reminders", "remote_registration", "cap_exempt", "notify", "row",
    ]

    /// The further fields each action takes.
    ///
    /// Adding a field to an action here (and to `decision`, which the editor annotations follow)
    /// and running `make generate` is all it takes for both readers to accept it; each reader
    /// then ignores it until code reads its value (`DecisionReader.decision` and
    /// `FastPath.DecisionTableReader`, which `FastPathTests` keeps word for word alike). At most
    /// 24 fields in all: the in-place reader answers them as bits below the action's code.
    public static let decisionFieldsByAction: [String: [String]] = [
        "none": [],
        "soft_prompt": ["title", "message", "accept", "decline", "presentation", "variant", "id", "link", "url"],
        "request_permission": ["options"],
        "settings_prompt": [
            "title", "message", "open", "cancel", "presentation", "deep_link", "for_setting", "id", "link", "url", "rows",
        ],
        "open_settings": ["deep_link"],
        "inform": ["title", "message", "button", "open", "deep_link", "presentation", "id", "link", "url", "rows"],
        "dismiss": [],
    ]

    /// Each entry of what `plan_reminders` returns.
    public static let reminder = Record(
        name: "PermitReminder",
        fields: [
            Field("day", "integer", optional: true), Field("hour", "integer", optional: true), Field("minute", "integer", optional: true),
            Field("title", "PermitText", optional: true), Field("body", "PermitText"),
            Field("action", "string", optional: true), Field("sound", "boolean", optional: true),
            Field("badge", "integer", optional: true), Field("id", "string", optional: true),
            Field("interruption_level", "PermitInterruptionLevel", optional: true),
        ])

    /// A decision's `notify`: a reminder's fields but its time, posted now.
    public static let notification = Record(
        name: "PermitNotification", fields: reminder.fields.filter { !["day", "hour", "minute"].contains($0.name) })

    /// Every record, by class name.
    public static let records: [String: Record] = Dictionary(
        uniqueKeysWithValues: [
            event, settings, platform, capabilities, softPromptHistory, systemPromptHistory, settingsPromptHistory,
            informHistory, featureHistory, eventHistory, history, user, localTime, app, context, decision, reminder, row,
            notification,
        ].map { ($0.name, $0) })
}
