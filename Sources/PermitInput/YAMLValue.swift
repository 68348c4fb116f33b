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
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw InputError.yamlSyntax(error, file: file)
        } catch {
            throw InputError("cannot read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
        guard let root else {
            throw InputError("the file is empty", at: SourceLocation(file: file, line: 1, column: 1),
                             hint: emptyHint)
        }
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
    /// "did you mean" for near misses) and that no key appears twice.
    package func table(allowed: [String]? = nil) throws(InputError) -> [(key: String, value: YAMLValue)] {
        guard case .mapping(let mapping) = node else { throw error("expected a table, got \(kindName)") }
        var seen = Set<String>()
        var entries: [(key: String, value: YAMLValue)] = []
        for (keyNode, valueNode) in mapping {
            let keyValue = YAMLValue(node: keyNode, path: path, file: file)
            guard case .scalar(let scalar) = keyNode else { throw keyValue.error("keys must be plain names") }
            let key = scalar.string
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
        return entries
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
            throw error("YAML aliases are not supported here; write the value out")
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
            if let value = Int64(scalar.string) { return .integer(value) }
            if let value = Double(scalar.string), scalar.string.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                return .number(value)
            }
            return .string(scalar.string)
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
                hint: "check the indentation and quoting around this line")
        case .composer(let context, let problem, let mark, _):
            let where_ = context.map { " \($0.text)" } ?? ""
            return InputError(
                "YAML error: \(problem)\(where_)", at: SourceLocation(file: file, line: mark.line, column: mark.column))
        default:
            return InputError("YAML error: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }
}
