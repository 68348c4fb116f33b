import PermitCore

@testable import PermitLua

/// `ctx.history` as the general path builds it: the ledger as a `LuaValue` tree by its Lua
/// names. Nothing ships on it (the warm path builds history on first read, `LazyContext.c`);
/// it is the tests' oracle, which the warm path's table is compared with field by field.
extension LuaBridge {
    /// The ledger by its Lua names; `nil` times are simply absent.
    static func history(_ ledger: Ledger, declaredEvents: [String] = []) -> LuaValue {
        var fields: [String: LuaValue] = [
            "launches": .integer(Int64(ledger.launches)),
            "foregrounds": .integer(Int64(ledger.foregrounds)),
            "last_status": .string(ledger.lastStatus.rawValue),
            "legacy_registered": .boolean(ledger.legacyRegistered),
            "prompts_today": .integer(Int64(ledger.promptsToday)),
        ]
        fields["first_launch_at"] = time(ledger.firstLaunchAt)
        fields["status_changed_at"] = time(ledger.statusChangedAt)
        fields["denied_at"] = time(ledger.deniedAt)
        var soft: [String: LuaValue] = [
            "shown": count(ledger.softPrompt.shown), "accepted": count(ledger.softPrompt.accepted),
            "declined": count(ledger.softPrompt.declined), "dismissed": count(ledger.softPrompt.dismissed),
            "inline_shown": count(ledger.softPrompt.inlineShown), "inline_acted": count(ledger.softPrompt.inlineActed),
            "links": count(ledger.softPrompt.links),
        ]
        soft["last_shown_at"] = time(ledger.softPrompt.lastShownAt)
        soft["last_answered_at"] = time(ledger.softPrompt.lastAnsweredAt)
        fields["soft_prompt"] = .table(LuaTable(soft))
        var system: [String: LuaValue] = [
            "requested": count(ledger.systemPrompt.requested), "shown": count(ledger.systemPrompt.shown),
        ]
        system["answered_at"] = time(ledger.systemPrompt.answeredAt)
        system["granted"] = ledger.systemPrompt.granted.map(LuaValue.boolean)
        fields["system_prompt"] = .table(LuaTable(system))
        var settings: [String: LuaValue] = [
            "shown": count(ledger.settingsPrompt.shown), "opened": count(ledger.settingsPrompt.opened),
            "cancelled": count(ledger.settingsPrompt.cancelled),
            "inline_shown": count(ledger.settingsPrompt.inlineShown),
            "inline_acted": count(ledger.settingsPrompt.inlineActed), "links": count(ledger.settingsPrompt.links),
        ]
        settings["last_shown_at"] = time(ledger.settingsPrompt.lastShownAt)
        fields["settings_prompt"] = .table(LuaTable(settings))
        var inform: [String: LuaValue] = [
            "shown": count(ledger.inform.shown), "ok": count(ledger.inform.ok), "dismissed": count(ledger.inform.dismissed),
            "opened": count(ledger.inform.opened), "links": count(ledger.inform.links),
        ]
        inform["last_shown_at"] = time(ledger.inform.lastShownAt)
        fields["inform"] = .table(LuaTable(inform))
        var features: [String: LuaValue] = [:]
        for (name, feature) in ledger.features {
            var entry: [String: LuaValue] = ["opened": count(feature.opened)]
            entry["last_opened_at"] = time(feature.lastOpenedAt)
            entry["last_prompt_at"] = time(feature.lastPromptAt)
            features[name] = .table(LuaTable(entry))
        }
        fields["features"] = .table(LuaTable(features))
        var events: [String: LuaValue] = [:]
        for (name, event) in ledger.events(including: declaredEvents) {
            var entry: [String: LuaValue] = ["count": count(event.count)]
            entry["last_at"] = time(event.lastAt)
            events[name] = .table(LuaTable(entry))
        }
        fields["events"] = .table(LuaTable(events))
        fields["state"] = table(ledger.state)
        return .table(LuaTable(fields))
    }

    private static func count(_ number: Int) -> LuaValue { .integer(Int64(number)) }
    private static func time(_ seconds: Int64?) -> LuaValue? { seconds.map(LuaValue.integer) }
}
