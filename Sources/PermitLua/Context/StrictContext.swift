import CLuaShim

/// Which ctx tables are strict and what each may lack, from `ContextSchema`: the names the C
/// side (`StrictContext.c`) gets when a policy's VM is made.
///
/// Closed records list every field, the optional ones included, so `last_shown_at` before the
/// first prompt reads nil while `shwon` is an error. Closed maps (`params`, `history.events`)
/// list none: every valid key is present. Open tables (`state`, `features`, an event's
/// `properties`, anything inside params) are not here and read nil for any absent key.
enum StrictContext {
    struct Table {
        let id: Int32
        let path: String
        let names: [String]
        let hint: String?
    }

    static let tables: [Table] = [
        record(PERMIT_STRICT_CTX, "ctx", ContextSchema.context),
        record(PERMIT_STRICT_EVENT, "ctx.event", ContextSchema.event),
        record(PERMIT_STRICT_SETTINGS, "ctx.settings", ContextSchema.settings),
        record(PERMIT_STRICT_PLATFORM, "ctx.platform", ContextSchema.platform),
        record(PERMIT_STRICT_CAPABILITIES, "ctx.capabilities", ContextSchema.capabilities),
        Table(
            id: Int32(PERMIT_STRICT_PARAMS), path: "ctx.params", names: [],
            hint: " (a param is declared with its default in the policy's params = { ... })"),
        record(PERMIT_STRICT_HISTORY, "ctx.history", ContextSchema.history),
        record(PERMIT_STRICT_SOFT_PROMPT, "ctx.history.soft_prompt", ContextSchema.softPromptHistory),
        record(PERMIT_STRICT_SYSTEM_PROMPT, "ctx.history.system_prompt", ContextSchema.systemPromptHistory),
        record(PERMIT_STRICT_SETTINGS_PROMPT, "ctx.history.settings_prompt", ContextSchema.settingsPromptHistory),
        record(PERMIT_STRICT_INFORM, "ctx.history.inform", ContextSchema.informHistory),
        record(PERMIT_STRICT_FEATURE, "a ctx.history.features entry", ContextSchema.featureHistory),
        record(PERMIT_STRICT_EVENT_HISTORY, "a ctx.history.events entry", ContextSchema.eventHistory),
        Table(
            id: Int32(PERMIT_STRICT_EVENTS), path: "ctx.history.events", names: [],
            hint: " (an app event is listed in the policy's events = { ... })"),
        record(PERMIT_STRICT_USER, "ctx.user", ContextSchema.user),
        record(PERMIT_STRICT_LOCAL_TIME, "ctx.local_time", ContextSchema.localTime),
        record(PERMIT_STRICT_APP, "ctx.app", ContextSchema.app),
    ]

    private static func record(_ id: Int, _ path: String, _ record: ContextSchema.Record) -> Table {
        Table(id: Int32(id), path: path, names: record.fields.map(\.name), hint: nil)
    }

    /// Makes the strict metatables in `vm`, once, before any ctx is pushed.
    static func define(in vm: LuaVM) throws(LuaError) {
        for table in tables { try vm.defineStrictTable(table) }
    }
}
