import PermitInput

/// How a scenario matches a text the policy produced (an error, a `reason`, a trace line):
/// a piece it contains, or a `/pattern/` it matches somewhere. One rule for every such
/// expectation, so an author learns it once (docs/reference/scenarios.md#text-match).
public enum TextMatch: Sendable, Hashable, CustomStringConvertible {
    /// The text contains this piece.
    case containing(String)
    /// The regular expression (written `/like this/`) matches somewhere in the text; `^` and
    /// `$` anchor it to the whole text.
    case pattern(String)

    /// `"piece"` or `/pattern/`, checking that a pattern compiles, so a typo in it is an input
    /// error at its line rather than a scenario that can never pass.
    static func parse(_ value: YAMLValue) throws(InputError) -> TextMatch {
        let text = try value.string()
        guard text.count >= 2, text.hasPrefix("/"), text.hasSuffix("/") else {
            guard !text.isEmpty else { throw value.error("the text is empty", hint: "write a piece of the text, or a /pattern/") }
            return .containing(text)
        }
        let pattern = String(text.dropFirst().dropLast())
        do {
            _ = try Regex(pattern)
        } catch {
            throw value.error(
                "\(text) is not a valid pattern (\(error))",
                hint: "patterns use Swift regex syntax, like /granted \\(.*\\)/; to match a text with slashes literally, leave one off")
        }
        return .pattern(pattern)
    }

    /// Whether `text` matches.
    public func matches(_ text: String) -> Bool {
        switch self {
        case .containing(let piece):
            return text.contains(piece)
        case .pattern(let pattern):
            // Compiled when parsed, so this cannot fail for a parsed scenario.
            guard let regex = try? Regex(pattern) else { return false }
            return text.contains(regex)
        }
    }

    /// `"piece"` or `/pattern/`, as the scenario wrote it.
    public var description: String {
        switch self {
        case .containing(let piece): "\"\(piece)\""
        case .pattern(let pattern): "/\(pattern)/"
        }
    }
}
