import PermitCore

/// A policy's `locales = { "en", "es" }`: the languages the app ships, so every text the
/// policy shows must carry each of them. Read and checked when the policy loads; `permit
/// check` holds the texts of every probed decision to the list.
///
/// Why declared: the core falls back to `en` when a translation is missing, so a prompt
/// without its Spanish text still shows (in English) and no test fails; only the policy can
/// say which languages it means to cover.
enum DeclaredLocales {
    static let list = DeclaredList(
        field: "locales", itemsName: "BCP 47 language tags", example: "locales = { \"en\", \"es\" }")

    /// The tags, and every problem of the list, each with the line it is on when the source shows it.
    static func read(_ value: LuaValue, source: String, chunkName: String) -> (tags: [String], problems: [PolicyError]) {
        let read = list.read(
            value, source: source, chunkName: chunkName, allowEmpty: false,
            check: { tag in
                TranslationCheck.isLanguageTag(tag)
                    ? nil
                    : "\"\(tag)\" is not a BCP 47 language tag; write it like \"\(tag.replacingOccurrences(of: "_", with: "-"))\""
            },
            finish: { tags in
                !tags.isEmpty && !tags.contains("en") ? "the list has no \"en\", the last fallback of every text; add it" : nil
            })
        return (read.names, read.problems)
    }
}
