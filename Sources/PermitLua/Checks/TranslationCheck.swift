import PermitCore

/// `permit check`'s translation check: the texts of each decision the policy makes in the
/// check's probe runs (PermitScenario's `CheckProbes`), held to four rules: every translation
/// table has `en` (the last fallback), its keys are BCP 47 tags (`en-US`, not `en_US`), the
/// texts of one decision share one set of locales (a title in French with an English-only
/// message shows a mixed prompt), and, when the policy declares `locales = { "en", "es" }`,
/// every text carries each of them.
///
/// Why probe runs and not the source: texts are often built away from the `return` (a local
/// table of copy, a helper function, a param), which a scan of table constructors cannot
/// follow, while the decision the policy returns is exactly what a user sees. The price: only
/// the decisions the probes reach are checked, and a problem is named by the decision's
/// reason, not by a line.
public enum TranslationCheck {
    /// The problems of one decision's texts; `locales` are the ones the policy declares. A
    /// link's text and its address are translated alike: a language without its own FAQ page
    /// must say so with a url entry of its own (or fall back to `en` on purpose).
    public static func problems(of decision: Decision, locales: [String] = []) -> [String] {
        let texts = decision.texts
        guard !texts.isEmpty else { return [] }
        let label = decision.reason.map { "the decision with reason \"\($0)\"" } ?? "a decision without a reason"
        var problems: [String] = []
        var tables: [(String, Set<String>)] = []
        for (field, text) in texts {
            guard case .translations(let table) = text else { continue }
            tables.append((field, Set(table.keys.filter(isLanguageTag))))  // a bad key is reported once, below
            if table["en"] == nil {
                problems.append("\(label): decision.\(field) has no \"en\" translation, the last fallback; add one")
            }
            for key in table.keys.sorted() where !isLanguageTag(key) {
                problems.append(
                    "\(label): decision.\(field) key \"\(key)\" is not a BCP 47 language tag; write it like "
                        + "\"\(key.replacingOccurrences(of: "_", with: "-"))\"")
            }
        }
        for (field, text) in texts {
            let missing = missingLocales(of: text, from: locales)
            guard !missing.isEmpty else { continue }
            let list = missing.map { "\"\($0)\"" }.joined(separator: ", ")
            if case .plain = text {
                problems.append(
                    "\(label): decision.\(field) is one string for every language, but the policy's locales ask for "
                        + "\(list) as well; give a table like { en = \"...\", \(missing[0]) = \"...\" }")
            } else {
                problems.append(
                    "\(label): decision.\(field) has no \(list) translation, which the policy's locales ask for; add "
                        + (missing.count == 1 ? "it" : "them"))
            }
        }
        let all = tables.reduce(into: Set<String>()) { $0.formUnion($1.1) }
        for (field, keys) in tables {
            let missing = all.subtracting(keys).sorted()
            guard !missing.isEmpty else { continue }
            let others = tables.filter { !$0.1.isDisjoint(with: missing) }.map { "decision.\($0.0)" }
            problems.append(
                "\(label): decision.\(field) lacks \(missing.map { "\"\($0)\"" }.joined(separator: ", ")), "
                    + "which \(others.joined(separator: " and ")) \(others.count == 1 ? "has" : "have")")
        }
        return problems
    }

    /// `en`, `zh-Hans`, `pt-BR`, `es-419`, `zh-Hans-CN`: a language of 2–3 letters, then an
    /// optional script (4 letters) and region (2 letters or 3 digits), joined by `-`.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        func letters(_ text: String, _ counts: ClosedRange<Int>) -> Bool {
            counts.contains(text.count) && text.allSatisfy { $0.isASCII && $0.isLetter }
        }
        guard let language = parts.first, letters(language, 2...3), language == language.lowercased() else { return false }
        var rest = parts.dropFirst()
        if let script = rest.first, letters(script, 4...4) { rest = rest.dropFirst() }
        if let region = rest.first,
            letters(region, 2...2) || (region.count == 3 && region.allSatisfy { $0.isASCII && $0.isNumber })
        {
            rest = rest.dropFirst()
        }
        return rest.isEmpty
    }

    /// The declared locales `text` does not reach before `en`: the app shows a locale's text
    /// along its fallback chain (`es-MX`, `es`, `en`), so `{ es = ... }` covers `es-MX`, while
    /// a plain string covers `en` alone.
    public static func missingLocales(of text: LocalizedText, from locales: [String]) -> [String] {
        locales.filter { locale in
            // English is the fallback every text has (a text without `en` is reported apart).
            guard locale.split(separator: "-").first != "en" else { return false }
            let chain = LocalizedText.fallbackChain(for: locale).filter { $0 != "en" }
            switch text {
            case .plain: return true
            case .translations(let table): return !chain.contains { table[$0] != nil }
            }
        }
    }
}
