import PermitCore

/// `permit check`'s translation check: the texts of each decision the policy makes in a set of
/// probe runs, held to three rules: every translation table has `en` (the last fallback), its
/// keys are BCP 47 tags (`en-US`, not `en_US`), and the texts of one decision share one set of
/// locales (a title in French with an English-only message shows a mixed prompt).
///
/// Why probe runs and not the source: texts are often built away from the `return` (a local
/// table of copy, a helper function, a param), which a scan of table constructors cannot
/// follow, while the decision the policy returns is exactly what a user sees. The price: only
/// the decisions the probes reach are checked (each built-in event in each status on iOS 15
/// and 17 with a fresh ledger, `feature_opened` for each name in a `features` param, and each
/// declared app event), and a problem is named by the decision's reason, not by a line.
public enum TranslationCheck {
    /// One sentence per problem found, each once.
    public static func problems(of policy: LuaPolicy) -> [String] {
        var found: [String] = []
        for context in probes(for: policy) {
            guard let decision = try? policy.decide(context) else { continue }
            for problem in problems(of: decision) where !found.contains(problem) { found.append(problem) }
        }
        return found
    }

    /// The problems of one decision's texts.
    static func problems(of decision: Decision) -> [String] {
        var texts: [(String, LocalizedText)]
        switch decision.action {
        case .softPrompt(let prompt):
            texts = [("title", prompt.title), ("message", prompt.message), ("accept", prompt.accept)]
            if let decline = prompt.decline { texts.append(("decline", decline)) }
        case .settingsPrompt(let prompt):
            texts = [("title", prompt.title), ("message", prompt.message), ("open", prompt.open)]
            if let cancel = prompt.cancel { texts.append(("cancel", cancel)) }
        default:
            return []
        }
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

    private static func probes(for policy: LuaPolicy) -> [PolicyContext] {
        var events: [AppEvent] = [.appLaunch, .appForeground, .appBackground]
        if case .list(let features)? = policy.defaultParams["features"] {
            for case .string(let name) in features { events.append(.featureOpened(name)) }
        }
        events.append(.featureOpened("any"))
        events += [
            .softPromptAnswered(.accept), .softPromptAnswered(.decline), .systemPromptAnswered(granted: false),
            .settingsPromptAnswered(.cancel),
        ]
        for name in policy.declaredEvents { if let event = try? AppEvent.custom(name) { events.append(event) } }
        var contexts: [PolicyContext] = []
        for major in [15, 17] {
            let version = OSVersion(major: major, minor: 0)
            for status: PermissionStatus in [.notDetermined, .denied, .provisional, .authorized] {
                for event in events {
                    contexts.append(
                        PolicyContext(
                            event: event, status: status, previousStatus: status, settings: .typical(for: status, on: version),
                            platform: Platform(version: version), history: Ledger(), now: 1_767_600_000))
                }
            }
        }
        return contexts
    }
}
