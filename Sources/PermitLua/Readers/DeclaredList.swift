import PermitCore

/// A policy field that is a list of names (`events = { ... }`, `locales = { ... }`): read once
/// here, with each problem placed on the line of the name it is about, so that every declared
/// list reports its mistakes the same way. The field decides what a name may be.
struct DeclaredList {
    /// The field as a policy writes it: `events`, `locales`.
    let field: String
    /// What the list holds, for messages: "event names", "language tags".
    let itemsName: String
    /// An example of the field, for the message when it is not a list.
    let example: String

    /// The names, in order and each once, and every problem of the list. `check` says what is
    /// wrong with one name (nil when it is fine); `finish` what is wrong with the whole list.
    func read(
        _ value: LuaValue, source: String, chunkName: String, allowEmpty: Bool = true,
        check: (String) -> String?, finish: ([String]) -> String? = { _ in nil }
    ) -> (names: [String], problems: [PolicyError]) {
        var names: [String] = []
        var problems: [PolicyError] = []
        func problem(_ message: String, near literal: String?) {
            let line = literal.flatMap { self.line(of: $0, in: source) } ?? self.line(of: nil, in: source)
            problems.append(PolicyError(kind: .load, field: "policy.\(field)", message: message, file: chunkName, line: line))
        }
        guard case .table(let table) = value, table.sequence.count == table.entries.count,
            allowEmpty || !table.sequence.isEmpty
        else {
            problem("expected a list of \(itemsName), e.g. \(example), got " + DecisionReader.describe(value), near: nil)
            return ([], problems)
        }
        for item in table.sequence {
            guard case .string(let name) = item else {
                problem("expected \(itemsName) (strings), got \(DecisionReader.describe(item))", near: nil)
                continue
            }
            if let why = check(name) {
                problem(why, near: name)
            } else if names.contains(name) {
                problem("\"\(name)\" is listed twice", near: name)
            } else {
                names.append(name)
            }
        }
        if let why = finish(names) { problem(why, near: nil) }
        return (names, problems)
    }

    /// The line of the quoted `literal` (or, for nil, of the `field =` line) in `source`.
    func line(of literal: String?, in source: String) -> Int? {
        let needles = literal.map { ["\"\($0)\"", "'\($0)'"] } ?? ["\(field) ="]
        var number = 0
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if needles.contains(where: { line.contains($0) }) { return number }
        }
        return literal == nil ? nil : line(of: nil, in: source)
    }
}
