import PermitCore

/// A policy's `events = { "lesson_completed", "streak_opened" }`: the app events of its own it
/// understands, read and checked when the policy loads.
///
/// Why declared: a scenario or `permit decide` then refuses `lesson_complete` with "did you
/// mean", and `ctx.history.events` lists each declared name at count 0 until it happens, so a
/// policy never meets a missing entry for an event it knows.
enum DeclaredEvents {
    static let list = DeclaredList(field: "events", itemsName: "event names", example: "events = { \"lesson_completed\" }")

    /// The names, and every problem of the list, each with the line it is on when the
    /// source shows it.
    static func read(_ value: LuaValue, source: String, chunkName: String) -> (names: [String], problems: [PolicyError]) {
        list.read(
            value, source: source, chunkName: chunkName,
            check: { name in
                if AppEvent.names.contains(name) {
                    return "\"\(name)\" is a built-in event; list only the app's own events (built-in ones need no declaration)"
                }
                return CustomEvent.problem(withName: name)
            },
            finish: { names in
                names.count > Ledger.maxEventNames
                    ? "\(names.count) events declared, more than the \(Ledger.maxEventNames) the ledger keeps" : nil
            })
    }
}
