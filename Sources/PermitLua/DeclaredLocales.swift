import PermitCore

/// A policy's `locales = { "en", "es" }`: the languages the app ships, so every text the
/// policy shows must carry each of them. Read and checked when the policy loads; `permit
/// check` holds the texts of every probed decision to the list.
///
/// Why declared: the core falls back to `en` when a translation is missing, so a prompt
/// without its Spanish text still shows (in English) and no test fails; only the policy can
/// say which languages it means to cover.
enum DeclaredLocales {
    /// The tags, and every problem of the list, each with the line it is on when the source shows it.
    static func read(_ value: LuaValue, source: String, chunkName: String) -> (tags: [String], problems: [PolicyError]) {
        var tags: [String] = []
        var problems: [PolicyError] = []
        func problem(_ message: String, near literal: String?) {
            let line = literal.flatMap { Self.line(of: $0, in: source) } ?? Self.line(of: nil, in: source)
            problems.append(PolicyError(kind: .load, field: "policy.locales", message: message, file: chunkName, line: line))
        }
        guard case .table(let table) = value, table.sequence.count == table.entries.count, !table.sequence.isEmpty else {
            problem(
                "expected a list of BCP 47 language tags, e.g. locales = { \"en\", \"es\" }, got " + DecisionReader.describe(value),
                near: nil)
            return ([], problems)
        }
        for item in table.sequence {
            guard case .string(let tag) = item else {
                problem("expected language tags (strings), got \(DecisionReader.describe(item))", near: nil)
                continue
            }
            if !TranslationCheck.isLanguageTag(tag) {
                problem(
                    "\"\(tag)\" is not a BCP 47 language tag; write it like \"\(tag.replacingOccurrences(of: "_", with: "-"))\"",
                    near: tag)
            } else if tags.contains(tag) {
                problem("\"\(tag)\" is listed twice", near: tag)
            } else {
                tags.append(tag)
            }
        }
        if !tags.isEmpty, !tags.contains("en") {
            problem("the list has no \"en\", the last fallback of every text; add it", near: nil)
        }
        return (tags, problems)
    }

    /// The line of the quoted `literal` (or, for nil, of the `locales =` field) in `source`.
    static func line(of literal: String?, in source: String) -> Int? {
        let needles = literal.map { ["\"\($0)\"", "'\($0)'"] } ?? ["locales ="]
        var number = 0
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if needles.contains(where: { line.contains($0) }) { return number }
        }
        return literal == nil ? nil : line(of: nil, in: source)
    }
}
