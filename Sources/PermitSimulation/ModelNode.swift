import PermitCore
import PermitScenario
import Yams

/// A YAML node of a user-model file with its place and its path from the root, so every error
/// names file, line, column and field (`sessions_per_day.poisson`).
struct ModelNode {
    let node: Node
    let path: String
    let file: String

    var location: SourceLocation {
        SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
    }

    static func parse(_ text: String, file: String) throws(InputError) -> ModelNode {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            switch error {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
                .composer(_, let problem, let mark, _):
                throw InputError(
                    "YAML syntax error: \(problem)", at: SourceLocation(file: file, line: mark.line, column: mark.column),
                    hint: "check the indentation and quoting around this line")
            default:
                throw InputError("YAML error: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
            }
        } catch {
            throw InputError("cannot read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
        guard let root else {
            throw InputError(
                "the file is empty", at: SourceLocation(file: file, line: 1, column: 1),
                hint: "start from examples/models/default.yaml")
        }
        return ModelNode(node: root, path: "", file: file)
    }

    func error(_ message: String, hint: String? = nil) -> InputError {
        InputError(message, at: location, field: path.isEmpty ? nil : path, hint: hint)
    }

    func child(_ key: String, _ node: Node) -> ModelNode {
        ModelNode(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }

    var kindName: String {
        switch node {
        case .mapping: return "a table"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar): return isNull ? "nothing" : "\"\(scalar.string)\""
        }
    }

    var isNull: Bool {
        if case .scalar(let scalar) = node {
            return scalar.style == .plain && ["", "null", "nil", "~", "Null", "NULL"].contains(scalar.string)
        }
        return false
    }

    /// The entries of a table in file order; keys must be in `allowed` (with a "did you mean")
    /// and appear once.
    func entries(allowed: [String]? = nil) throws(InputError) -> [(key: String, value: ModelNode)] {
        guard case .mapping(let mapping) = node else { throw error("expected a table, got \(kindName)") }
        var seen = Set<String>()
        var result: [(key: String, value: ModelNode)] = []
        for (keyNode, valueNode) in mapping {
            let keyPlace = ModelNode(node: keyNode, path: path, file: file)
            guard case .scalar(let scalar) = keyNode else { throw keyPlace.error("keys must be plain names") }
            let key = scalar.string
            if let allowed, !allowed.contains(key) {
                throw InputError(
                    "unknown key \"\(key)\"", at: keyPlace.location, field: path.isEmpty ? nil : path,
                    hint: Suggestion.hint(for: key, in: allowed))
            }
            guard seen.insert(key).inserted else {
                throw InputError("\"\(key)\" appears twice", at: keyPlace.location, field: path.isEmpty ? nil : path)
            }
            result.append((key, child(key, valueNode)))
        }
        return result
    }

    func fields(allowed: [String]) throws(InputError) -> [String: ModelNode] {
        var result: [String: ModelNode] = [:]
        for (key, value) in try entries(allowed: allowed) { result[key] = value }
        return result
    }

    func list() throws(InputError) -> [ModelNode] {
        guard case .sequence(let sequence) = node else { throw error("expected a list, got \(kindName)") }
        return sequence.enumerated().map { index, node in
            ModelNode(node: node, path: "\(path)[\(index + 1)]", file: file)
        }
    }

    func string() throws(InputError) -> String {
        guard case .scalar(let scalar) = node, !isNull else { throw error("expected text, got \(kindName)") }
        return scalar.string
    }

    func number() throws(InputError) -> Double {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Double(scalar.string),
            value.isFinite
        else {
            throw error("expected a number, got \(kindName)")
        }
        return value
    }

    func int(in range: ClosedRange<Int>) throws(InputError) -> Int {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            throw error("expected a whole number, got \(kindName)")
        }
        guard range.contains(value) else {
            throw error("\(value) is out of range; expected \(range.lowerBound)–\(range.upperBound)")
        }
        return value
    }

    /// A chance: a number from 0 to 1 (`0.3`), or a percentage (`30%`).
    func probability() throws(InputError) -> Double {
        if case .scalar(let scalar) = node, scalar.style == .plain, scalar.string.hasSuffix("%"),
            let percent = Double(scalar.string.dropLast()), percent.isFinite
        {
            guard (0...100).contains(percent) else {
                throw error("\(scalar.string) is out of range; a chance is 0%–100%")
            }
            return percent / 100
        }
        guard let value = try? number() else {
            throw error("expected a chance from 0 to 1 (like 0.3) or a percentage (like 30%), got \(kindName)")
        }
        guard (0...1).contains(value) else {
            throw error("\(value) is out of range; a chance is from 0 to 1 (or write a percentage like 30%)")
        }
        return value
    }
}
