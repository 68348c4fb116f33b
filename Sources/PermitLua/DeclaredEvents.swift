import PermitCore

/// A policy's `events = { "lesson_completed", "streak_opened" }`: the app events of its own it
/// understands, read and checked when the policy loads.
///
/// Why declared: a scenario or `permit decide` then refuses `lesson_complete` with "did you
/// mean", and `ctx.history.events` lists each declared name at count 0 until it happens, so a
/// policy never meets a missing entry for an event it knows.
enum DeclaredEvents {
    /// The names, and every problem of the list, each with the line it is on when the
    /// source shows it.
    static func read(_ value: LuaValue, source: String, chunkName: String) -> (names: [String], problems: [PolicyError]) {
        var names: [String] = []
        var problems: [PolicyError] = []
        func problem(_ message: String, near literal: String?) {
            let line = literal.flatMap { Self.line(of: $0, in: source) } ?? Self.line(of: nil, in: source)
            problems.append(PolicyError(kind: .load, field: "policy.events", message: message, file: chunkName, line: line))
        }
        guard case .table(let table) = value, table.sequence.count == table.entries.count else {
            problem(
                "expected a list of event names, e.g. events = { \"lesson_completed\" }, got "
                    + DecisionReader.describe(value), near: nil)
            return ([], problems)
        }
        for item in table.sequence {
            guard case .string(let name) = item else {
                problem("expected event names (strings), got \(DecisionReader.describe(item))", near: nil)
                continue
            }
            if AppEvent.names.contains(name) {
                problem(
                    "\"\(name)\" is a built-in event; list only the app's own events (built-in ones need no declaration)",
                    near: name)
            } else if let why = CustomEvent.problem(withName: name) {
                problem(why, near: name)
            } else if names.contains(name) {
                problem("\"\(name)\" is listed twice", near: name)
            } else {
                names.append(name)
            }
        }
        if names.count > Ledger.maxEventNames {
            problem("\(names.count) events declared, more than the \(Ledger.maxEventNames) the ledger keeps", near: nil)
        }
        return (names, problems)
    }

    /// The line of the quoted `literal` (or, for nil, of the `events =` field) in `source`.
    static func line(of literal: String?, in source: String) -> Int? {
        let needles = literal.map { ["\"\($0)\"", "'\($0)'"] } ?? ["events ="]
        var number = 0
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if needles.contains(where: { line.contains($0) }) { return number }
        }
        return literal == nil ? nil : line(of: nil, in: source)
    }
}
