import PermitCore
import Yams

/// A YAML node with its place in the file and its path from the root, so every error can name
/// file, line, column and field. Reading never runs anything and never crashes on bad input.
package struct YAMLValue {
    package let node: Node
    package let path: String
    package let file: String

    package var location: SourceLocation {
        SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
    }

    /// Parses a whole document. An empty file or a syntax error is an `InputError`.
    /// - Parameter emptyHint: what to tell the user when the file is empty.
    package static func parse(
        _ text: String, file: String, emptyHint: String = "a scenario needs at least `steps:`"
    ) throws(InputError) -> YAMLValue {
        // Before Yams composes: keys that would make it expand aliases, duplicate keys at their line.
        try YAMLEventCheck.check(text, file: file)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw InputError.yamlSyntax(error, file: file)
        } catch {
            throw InputError("cannot read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
        guard let root else {
            throw InputError(
                "the file is empty", at: SourceLocation(file: file, line: 1, column: 1),
                hint: emptyHint)
        }
        try YAMLDocumentCheck.check(root, file: file)
        return YAMLValue(node: root, path: "", file: file)
    }

    package func error(_ message: String, hint: String? = nil) -> InputError {
        InputError(message, at: location, field: path.isEmpty ? nil : path, hint: hint)
    }

    package func child(_ key: String, _ node: Node) -> YAMLValue {
        YAMLValue(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }

    /// What kind of value this is, in words, for "expected X, got Y" messages.
    package var kindName: String {
        switch node {
        case .mapping: return "a table"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            if isNull { return "nothing" }
            return "\"\(scalar.string)\""
        }
    }

    package var isNull: Bool {
        if case .scalar(let scalar) = node {
            return scalar.style == .plain && ["", "null", "nil", "~", "Null", "NULL"].contains(scalar.string)
        }
        return false
    }

    /// The entries of a table, checking that every key is one of `allowed` (with a
    /// "did you mean" for near misses) and that no key appears twice. A merge key
    /// (`<<: *defaults`, or a list of aliases) brings in the entries of the tables it names
    /// that the table does not set itself; the first table listed wins.
    package func table(allowed: [String]? = nil) throws(InputError) -> [(key: String, value: YAMLValue)] {
        guard case .mapping(let mapping) = node else { throw error("expected a table, got \(kindName)") }
        var seen = Set<String>()
        var entries: [(key: String, value: YAMLValue)] = []
        var merged: [(key: String, value: YAMLValue)] = []
        for (keyNode, valueNode) in mapping {
            let keyValue = YAMLValue(node: keyNode, path: path, file: file)
            guard case .scalar(let scalar) = keyNode else { throw keyValue.error("keys must be plain names") }
            let key = scalar.string
            if key == "<<", scalar.style == .plain {
                merged += try YAMLValue(node: valueNode, path: path, file: file).mergedEntries(allowed: allowed)
                continue
            }
            if let allowed, !allowed.contains(key) {
                throw InputError(
                    "unknown key \"\(key)\"", at: keyValue.location, field: path.isEmpty ? nil : path,
                    hint: Suggestion.hint(for: key, in: allowed))
            }
            guard seen.insert(key).inserted else {
                throw InputError("\"\(key)\" appears twice", at: keyValue.location, field: path.isEmpty ? nil : path)
            }
            entries.append((key, child(key, valueNode)))
        }
        for entry in merged where seen.insert(entry.key).inserted {
            entries.append((entry.key, child(entry.key, entry.value.node)))
        }
        return entries
    }

    /// What a merge key's value brings in: one table, or a list of tables.
    private func mergedEntries(allowed: [String]?) throws(InputError) -> [(key: String, value: YAMLValue)] {
        switch node {
        case .mapping:
            return try table(allowed: allowed)
        case .sequence(let sequence) where sequence.allSatisfy({ if case .mapping = $0 { true } else { false } }):
            var entries: [(key: String, value: YAMLValue)] = []
            for item in sequence {
                entries += try YAMLValue(node: item, path: path, file: file).table(allowed: allowed)
            }
            return entries
        default:
            throw error(
                "`<<` merges a table into this one, got \(kindName)",
                hint: "write `<<: *name` for a table anchored as `&name`, or `<<: [*a, *b]`")
        }
    }

    /// A table as a dictionary.
    package func fields(allowed: [String]) throws(InputError) -> [String: YAMLValue] {
        var result: [String: YAMLValue] = [:]
        for (key, value) in try table(allowed: allowed) { result[key] = value }
        return result
    }

    package func list() throws(InputError) -> [YAMLValue] {
        guard case .sequence(let sequence) = node else { throw error("expected a list, got \(kindName)") }
        return sequence.enumerated().map { index, node in
            YAMLValue(node: node, path: "\(path)[\(index + 1)]", file: file)
        }
    }

    package func string() throws(InputError) -> String {
        guard case .scalar(let scalar) = node, !isNull else { throw error("expected text, got \(kindName)") }
        return scalar.string
    }

    package func bool() throws(InputError) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else {
            throw error("expected true or false, got \(kindName)")
        }
        switch scalar.string {
        case "true", "True", "TRUE", "yes": return true
        case "false", "False", "FALSE", "no": return false
        default: throw error("expected true or false, got \(kindName)")
        }
    }

    package func int(in range: ClosedRange<Int>? = nil) throws(InputError) -> Int {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            throw error("expected a whole number, got \(kindName)")
        }
        if let range, !range.contains(value) {
            throw error("\(value) is out of range; expected \(range.lowerBound)–\(range.upperBound)")
        }
        return value
    }

    /// One of a fixed set of names.
    package func oneOf(_ names: [String]) throws(InputError) -> String {
        let text = try string()
        guard names.contains(text) else {
            throw error("\"\(text)\" is not valid", hint: Suggestion.hint(for: text, in: names))
        }
        return text
    }

    /// Any value a policy can take: params, remembered state, expected ledger values.
    package func policyValue() throws(InputError) -> PolicyValue {
        switch node {
        case .alias:
            throw error("YAML aliases are not supported here; write the value out")  // Yams resolves them
        case .sequence:
            var values: [PolicyValue] = []
            for item in try list() { values.append(try item.policyValue()) }
            return .list(values)
        case .mapping:
            var table: [String: PolicyValue] = [:]
            for (key, value) in try self.table() { table[key] = try value.policyValue() }
            return .table(table)
        case .scalar(let scalar):
            if isNull { throw error("expected a value, got nothing") }
            guard scalar.style == .plain else { return .string(scalar.string) }
            if let value = try? bool() { return .bool(value) }
            let text = scalar.string
            if let value = Int64(text) { return .integer(value) }
            // A number too big for its kind is refused, never turned into text or infinity: a
            // policy would compare against a value nobody wrote.
            if text.wholeMatch(of: /[-+]?[0-9]+/) != nil {
                throw error(
                    "\(text) does not fit a whole number (\(Int64.min) to \(Int64.max))",
                    hint: "write a smaller number, or quote it to keep it as text")
            }
            if let value = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard value.isFinite else {
                    throw error(
                        "\(text) is beyond the largest number (about 1.8e308)",
                        hint: "write a smaller number, or quote it to keep it as text")
                }
                return .number(value)
            }
            return .string(text)
        }
    }
}

extension InputError {
    /// A YAML syntax error with the line and column libyaml reported.
    static func yamlSyntax(_ error: YamlError, file: String) -> InputError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _):
            let where_ = context.map { " \($0.text)" } ?? ""
            return InputError(
                "YAML syntax error: \(problem)\(where_)", at: SourceLocation(file: file, line: mark.line, column: mark.column),
                hint: problem.contains("mapping values are not allowed")
                    // `name: ios 9: first launch` — the second `: ` reads as a nested key.
                    ? "a value that contains \": \" must be quoted: quote the value, e.g. name: \"ios 9: first launch\""
                    : "check the indentation and quoting around this line")
        case .composer(let context, let problem, let mark, _):
            let where_ = context.map { " \($0.text)" } ?? ""
            return InputError(
                "YAML error: \(problem)\(where_)", at: SourceLocation(file: file, line: mark.line, column: mark.column))
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams reports the first of the two; the second is what the user just wrote.
            let key = duplicates.first ?? "?"
            let first = context.mark
            let second = secondOccurrence(of: key, after: first, in: context.text)
            return InputError(
                "\"\(key)\" appears twice in one table" + (second != nil ? " (first at line \(first.line))" : ""),
                at: SourceLocation(file: file, line: second ?? first.line, column: first.column),
                hint: "keep one of them")
        case .reader(let problem, let offset, _, let yaml):
            let position = offset.map { InputError.position(ofByte: $0, in: yaml) }
            return InputError(
                "YAML error: \(problem)" + (offset.map { " at byte \($0)" } ?? ""),
                at: SourceLocation(file: file, line: position?.line ?? 1, column: position?.column ?? 1))
        default:
            return InputError("YAML error: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }

    /// The line of the next `key:` at `first`'s column after `first` (block style), if any.
    static func secondOccurrence(of key: String, after first: Mark, in text: String) -> Int? {
        var line = 0
        for row in text.split(separator: "\n", omittingEmptySubsequences: false) {
            line += 1
            guard line > first.line else { continue }
            let indent = row.prefix { $0 == " " }.count
            if indent + 1 < first.column { return nil }  // the table ended
            guard indent + 1 == first.column else { continue }
            let rest = row.dropFirst(indent)
            for form in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(form + ":") { return line }
        }
        return nil
    }

    /// 1-based line and column of byte `offset` in `text`'s UTF-8.
    static func position(ofByte offset: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in text.utf8.prefix(offset) {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }
}
