/// What a decoded ledger may hold: its types are checked by decoding, its values here.
///
/// A counter below zero never comes from Permit (counters only grow, and stop at `Int.max`
/// rather than wrap), so a ledger holding one was damaged or written by hand: the stores set it
/// aside as damaged and `permit decide --history` refuses it, instead of handing a policy a
/// count that no user could have.
extension Ledger {
    /// The first counter below zero, as its path (`soft_prompt.shown`) and value, or `nil`
    /// when every counter is zero or more.
    public var negativeCounter: (field: String, value: Int)? {
        var found: (field: String, value: Int)?
        func check(_ value: Int, _ field: @autoclosure () -> String) {
            if found == nil, value < 0 { found = (field(), value) }
        }
        check(launches, "launches")
        check(foregrounds, "foregrounds")
        check(promptsToday, "prompts_today")
        softPrompt.checkCounters { check($0, "soft_prompt.\($1)") }
        systemPrompt.checkCounters { check($0, "system_prompt.\($1)") }
        settingsPrompt.checkCounters { check($0, "settings_prompt.\($1)") }
        inform.checkCounters { check($0, "inform.\($1)") }
        for name in features.keys.sorted() { check(features[name]!.opened, "features.\(name).opened") }
        for name in events.keys.sorted() { check(events[name]!.count, "events.\(name).count") }
        return found
    }

    /// Why this ledger cannot be one Permit wrote (`negativeCounter` as a sentence), or `nil`.
    public var valueProblem: String? {
        guard let (field, value) = negativeCounter else { return nil }
        return "\(field) is \(value); counters are never negative"
    }

    /// Adds one to a counter, stopping at `Int.max`: a ledger read from a file may hold any
    /// count, and one more must never trap.
    @inline(__always)
    static func countOne(_ counter: inout Int) {
        if counter < Int.max { counter += 1 }
    }
}

extension Ledger.SoftPromptHistory {
    func checkCounters(_ check: (Int, String) -> Void) {
        check(shown, "shown")
        check(accepted, "accepted")
        check(declined, "declined")
        check(dismissed, "dismissed")
        check(inlineShown, "inline_shown")
        check(inlineActed, "inline_acted")
        check(links, "links")
    }
}

extension Ledger.SystemPromptHistory {
    func checkCounters(_ check: (Int, String) -> Void) {
        check(requested, "requested")
        check(shown, "shown")
    }
}

extension Ledger.SettingsPromptHistory {
    func checkCounters(_ check: (Int, String) -> Void) {
        check(shown, "shown")
        check(opened, "opened")
        check(cancelled, "cancelled")
        check(inlineShown, "inline_shown")
        check(inlineActed, "inline_acted")
        check(links, "links")
    }
}

extension DurableLedger {
    /// The first counter below zero in the kept histories, as a sentence, or `nil`.
    public var valueProblem: String? {
        var found: String?
        func check(_ value: Int, _ field: String) {
            if found == nil, value < 0 { found = "\(field) is \(value); counters are never negative" }
        }
        softPrompt?.checkCounters { check($0, "soft_prompt.\($1)") }
        systemPrompt?.checkCounters { check($0, "system_prompt.\($1)") }
        settingsPrompt?.checkCounters { check($0, "settings_prompt.\($1)") }
        return found
    }
}
