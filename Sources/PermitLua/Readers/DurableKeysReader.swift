import PermitCore

/// Reads a policy's `remember_durable = { history = { ... }, state = { ... } }`
/// (docs/reference/policy.md#policy-remember-durable) into `DurableKeys`, collecting every problem,
/// as `permit check` lists them all.
enum DurableKeysReader {
    /// The fields `remember_durable` may have.
    static let fields = ["history", "state"]

    /// The keys `value` declares, and what is wrong with it; `field` paths start at
    /// `policy.remember_durable`.
    static func read(_ value: LuaValue) -> (keys: DurableKeys, problems: [(field: String, message: String)]) {
        var keys = DurableKeys()
        var problems: [(field: String, message: String)] = []
        let root = "policy.remember_durable"
        guard case .table(let table) = value else {
            problems.append(
                (
                    root,
                    "expected a table like { history = { \"settings_prompt\" }, state = { \"asks\" } }, "
                        + "got \(DecisionReader.describe(value))"
                ))
            return (keys, problems)
        }
        for entry in table.entries {
            guard case .string(let name) = entry.key, fields.contains(name) else {
                let name = entry.key.stringValue ?? DecisionReader.describe(entry.key)
                problems.append(("\(root).\(name)", "not a field of remember_durable; \(Suggestion.hint(for: name, in: fields))"))
                continue
            }
        }
        let histories = DurableHistory.allCases.map(\.rawValue)
        for (index, name) in names(table["history"], at: "\(root).history", into: &problems) {
            if let history = DurableHistory(rawValue: name) {
                keys.histories.insert(history)
            } else {
                problems.append(
                    (
                        "\(root).history[\(index)]",
                        "\"\(name)\" is not a history that can be kept; \(Suggestion.hint(for: name, in: histories))"
                    ))
            }
        }
        for (_, name) in names(table["state"], at: "\(root).state", into: &problems) {
            keys.state.insert(name)
        }
        if keys.state.count > DurableKeys.stateKeyLimit {
            problems.append(
                (
                    "\(root).state",
                    "\(keys.state.count) keys, more than the \(DurableKeys.stateKeyLimit) allowed; a Keychain item should "
                        + "stay small, so keep only what must outlive a reinstall"
                ))
        }
        return (keys, problems)
    }

    /// The strings of a list field, numbered from 1; anything else is a problem.
    private static func names(
        _ value: LuaValue?, at path: String, into problems: inout [(field: String, message: String)]
    ) -> [(Int, String)] {
        guard let value else { return [] }
        guard case .table(let list) = value, list.sequence.count == list.entries.count else {
            problems.append((path, "expected a list of names like { \"asks\" }, got \(DecisionReader.describe(value))"))
            return []
        }
        var out: [(Int, String)] = []
        for (offset, item) in list.sequence.enumerated() {
            guard case .string(let name) = item, !name.isEmpty else {
                problems.append(("\(path)[\(offset + 1)]", "expected a name, got \(DecisionReader.describe(item))"))
                continue
            }
            out.append((offset + 1, name))
        }
        return out
    }
}
