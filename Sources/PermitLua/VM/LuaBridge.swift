import PermitCore

/// Converts the core's values into Lua values. Names follow docs/reference/policy.md#ctx.
enum LuaBridge {
    static func value(_ value: PolicyValue) -> LuaValue {
        switch value {
        case .bool(let flag): .boolean(flag)
        case .integer(let number): .integer(number)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .list(let items): .table(LuaTable(array: items.map(Self.value)))
        case .table(let fields): .table(LuaTable(fields.mapValues(Self.value)))
        }
    }

    static func table(_ fields: [String: PolicyValue]) -> LuaValue {
        .table(LuaTable(fields.mapValues(value)))
    }

    /// `ctx.event`: the name, the event's own field, and `prompt_id` when it answers a prompt
    /// with an `id`.
    static func event(_ event: AppEvent, promptID: String? = nil) -> LuaValue {
        var fields: [String: LuaValue] = ["name": .string(event.name)]
        for field in event.fields { fields[field.name] = value(field.value) }
        if let promptID { fields["prompt_id"] = .string(promptID) }
        return .table(LuaTable(fields))
    }

    static func settings(_ settings: NotificationSettings) -> LuaValue {
        var fields: [String: LuaValue] = [:]
        for setting in NotificationSettings.Setting.allCases { fields[setting.rawValue] = .string(settings[setting].rawValue) }
        return .table(LuaTable(fields))
    }

    static func platform(_ platform: Platform) -> LuaValue {
        .table(
            LuaTable([
                "os": .string(platform.os),
                "version": .string(platform.version.description),
                "major": .integer(Int64(platform.version.major)),
                "minor": .integer(Int64(platform.version.minor)),
                "patch": .integer(Int64(platform.version.patch)),
            ]))
    }

    /// `ctx.app`: the version, the one before it after an update, and the name (absent fields
    /// read nil).
    static func app(_ app: AppInfo) -> LuaValue {
        var fields: [String: LuaValue] = [:]
        if let version = app.version { fields["version"] = .string(version) }
        if let name = app.name { fields["name"] = .string(name) }
        if let previous = app.previousVersion { fields["previous_version"] = .string(previous) }
        return .table(LuaTable(fields))
    }

    static func capabilities(_ capabilities: Capabilities) -> LuaValue {
        var fields: [String: LuaValue] = [:]
        for (name, flag) in capabilities.namedValues { fields[name] = .boolean(flag) }
        return .table(LuaTable(fields))
    }

    /// A Lua value as a core value, for params and remembered state. Functions, cycles and
    /// other non-data values are refused by the caller's validation first.
    static func policyValue(_ value: LuaValue, path: String) throws(PolicyError) -> PolicyValue {
        switch value {
        case .boolean(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .table(let table):
            let sequence = table.sequence
            if !table.entries.isEmpty, sequence.count == table.entries.count {
                var items: [PolicyValue] = []
                for (index, item) in sequence.enumerated() { items.append(try policyValue(item, path: "\(path)[\(index + 1)]")) }
                return .list(items)
            }
            var fields: [String: PolicyValue] = [:]
            for entry in table.entries {
                guard case .string(let key) = entry.key else {
                    throw PolicyError(kind: .load, field: path, message: "keys must be names, got a \(entry.key.typeName) key")
                }
                fields[key] = try policyValue(entry.value, path: "\(path).\(key)")
            }
            return .table(fields)
        case .nil, .ref, .other:
            throw PolicyError(kind: .load, field: path, message: "expected a string, number, boolean or table, got a \(value.typeName)")
        }
    }
}
