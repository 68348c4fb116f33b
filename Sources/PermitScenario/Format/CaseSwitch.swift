import PermitCore
import PermitInput

/// An expectation that depends on the case (docs/reference/scenarios.md#case-values):
/// `deep_link: { "<15.4": app_settings, default: notification_settings }` or
/// `title: { de: "Erinnerungen", default: "Reminders" }`.
///
/// A table is such a switch when any of its keys is `default` or a selector: an iOS range
/// (`"<15.4"`, `">=16"`), `axis=value` (`locale=de`, `os=9.3`), a bare value of a matrix axis,
/// a bare locale (`de`, `zh-Hans`) or a bare iOS version (`"9.3"`). The first key in written
/// order that matches the case wins, `default` when none does. The tables of
/// `expect_reminders`, `expect_settings` and `expect_ledger` have no key of these shapes, so
/// an ordinary expectation table is not mistaken for one; a reminder entry's `at` and `id`, and
/// an `expect` table's `id`, would look like locales, so those tables are read as tables and
/// only their values resolved (`ScenarioParser.decisionTable`).
struct CaseSwitch {
    /// The case's value of every axis (`os`, `locale`, `timezone`, `bucket`), matrix or not.
    let current: [String: String]
    /// The case's iOS version, for ranges.
    let version: OSVersion
    /// Every value each matrix axis takes, for bare keys.
    let axisValues: [(axis: String, values: [String])]
    /// `os=9.3, locale=de`, for errors.
    let label: String

    /// The value for this case: `value` itself unless it is a switch, else the matching entry's
    /// value (itself resolved, so switches may nest).
    func resolve(_ value: YAMLValue) throws(InputError) -> YAMLValue {
        try picked(value) { _ in false }
    }

    /// `resolve`, where a table `isValue` accepts is a value, never a switch, also where a switch
    /// picks it: an `expect` table of decision fields, whose `id` would read as a locale.
    func picked(_ value: YAMLValue, keeping isValue: (YAMLValue) -> Bool) throws(InputError) -> YAMLValue {
        guard case .mapping = value.node, !isValue(value) else { return value }
        let entries = try value.table()
        let keys = entries.map(\.key)
        // One selector makes it a switch, so a key that picks nothing (`fr` with no `fr` in
        // the matrix) is named as such rather than the whole table refused as the wrong type.
        guard keys.contains(where: isSelector) else { return value }
        var fallback: YAMLValue?
        for (key, entry) in entries {
            if key == "default" {
                fallback = entry
                continue
            }
            guard isSelector(key) else {
                throw entry.error(
                    "\"\(key)\" picks no case",
                    hint: "a case key is an iOS range (\"<15.4\", \">=16\"), axis=value (locale=de), "
                        + "a value of a matrix axis\(axisValues.isEmpty ? "" : " (\(axisValues.map(\.axis).joined(separator: ", ")))"), "
                        + "or default")
            }
            if matches(key) { return try picked(entry, keeping: isValue) }
        }
        // No key names the case's locale exactly: the app shows `es-MX` the `es` text, so
        // `{ es: Continuar }` answers for `es-MX` too (the locale's fallback chain, before `en`).
        if let entry = localeFallback(in: entries) { return try picked(entry, keeping: isValue) }
        guard let fallback else {
            throw value.error(
                "no value for the case \(label.isEmpty ? "os=\(version)" : label)",
                hint: "add `default:`, or a key that matches this case")
        }
        return try picked(fallback, keeping: isValue)
    }

    /// `<15.4`, `<=15.4`, `>15.4`, `>=15.4`: the operator and the version.
    private func range(_ key: String) -> (String, OSVersion)? {
        // Every key of every table a step holds is asked; only one starting with `<` or `>` can
        // be a range, and a regex literal is compiled anew at each use.
        guard let first = key.utf8.first, first == UInt8(ascii: "<") || first == UInt8(ascii: ">"),
            let match = key.wholeMatch(of: /(<=|>=|<|>)\s*(\d+(?:\.\d+){0,2})/),
            let bound = try? OSVersion(parsing: String(match.2))
        else { return nil }
        return (String(match.1), bound)
    }

    /// The entry whose locale key (`es`, `locale=es`) is the nearest of the case's locale's
    /// fallback chain (`es-MX` → `es`); English answers only for an English locale, as a
    /// missing translation would fall back to it whatever the case's language.
    private func localeFallback(in entries: [(key: String, value: YAMLValue)]) -> YAMLValue? {
        guard let locale = current["locale"] else { return nil }
        let chain = LocalizedText.fallbackChain(for: locale).dropFirst().filter {
            $0 != "en" || locale.split(separator: "-").first == "en"
        }
        for candidate in chain {
            for (key, entry) in entries {
                if let (axis, value) = assignment(key), axis == "locale", value == candidate { return entry }
                if bareAxis(key) == "locale", key == candidate { return entry }
            }
        }
        return nil
    }

    /// `locale=de`: an axis and a value.
    private func assignment(_ key: String) -> (axis: String, value: String)? {
        let parts = key.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, ScenarioMatrix.axes.contains(parts[0]), !parts[1].isEmpty else { return nil }
        return (parts[0], parts[1])
    }

    private func isSelector(_ key: String) -> Bool {
        key == "default" || range(key) != nil || assignment(key) != nil || bareAxis(key) != nil
    }

    /// The axis a bare key names: one whose matrix values include it, else `os` for a version
    /// (`"9.3"`) and `locale` for a locale (`zh-Hans`), so a steps file shared by scenarios with
    /// and without a matrix can pick by locale in both.
    private func bareAxis(_ key: String) -> String? {
        if let axis = axisValues.first(where: { $0.values.contains(key) })?.axis { return axis }
        if key.first?.isNumber == true, (try? OSVersion(parsing: key)) != nil { return "os" }
        // Written with `-` only: `car_play` would otherwise read as a language and a script.
        return !key.contains("_") && ScenarioParser.isLocale(key) ? "locale" : nil
    }

    private func matches(_ key: String) -> Bool {
        if let (operation, bound) = range(key) {
            switch operation {
            case "<": return version < bound
            case "<=": return version <= bound
            case ">": return version > bound
            default: return version >= bound
            }
        }
        if let (axis, value) = assignment(key) { return equal(axis, value) }
        return bareAxis(key).map { equal($0, key) } ?? false
    }

    /// Whether the case's `axis` is `value`; versions compare as versions (`12` is `12.0`).
    private func equal(_ axis: String, _ value: String) -> Bool {
        if axis == "os", let wanted = try? OSVersion(parsing: value) { return wanted == version }
        return current[axis] == value
    }
}
