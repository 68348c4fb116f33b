/// Resolves one field's texts across a plan's reminders, reusing the last answer when the next
/// reminder names the same text.
///
/// A policy's reminders usually share their texts: the packs' nine reminders name the same
/// title and body tables, which the Lua reader turns into values sharing one dictionary. The
/// planner scanned the same translations for the locale once a reminder, nine times a plan
/// (about a sixth of planning them). Comparing with the last text first costs little when the
/// storage is shared (a dictionary's `==` checks identity before contents) and is exact when
/// it is not: equal texts resolve alike.
struct LastResolvedText {
    // Not an optional pair: binding one (`if let last`) copied the text and its answer out,
    // retaining and releasing both, on every reminder.
    private var hasLast = false
    private var lastText = LocalizedText.plain("")
    private var lastResolved: String?

    /// `text` resolved along `chain`; the caller keeps one chain for all its calls.
    mutating func resolve(_ text: LocalizedText, along chain: [String]) -> String? {
        if hasLast, lastText == text { return lastResolved }
        let resolved = text.resolved(along: chain)
        (hasLast, lastText, lastResolved) = (true, text, resolved)
        return resolved
    }
}
