/// Which `return` statements of a policy's `decide` answered, with what, and how often:
/// line coverage says a line ran, this says which decisions the scenarios actually reached
/// (`permit test --coverage`, docs/reference/cli.md#coverage).
public struct DecisionCoverage: Sendable, Hashable {
    /// One kind of answer: the `return` that gave it, its action and its reason.
    public struct Answer: Sendable, Hashable, Comparable {
        /// The line of the `return` statement in `decide`.
        public var line: Int
        /// The action's name (`soft_prompt`, `none`, ...).
        public var action: String
        /// The decision's `reason`, when it gave one.
        public var reason: String?

        /// An answer.
        public init(line: Int, action: String, reason: String?) {
            self.line = line
            self.action = action
            self.reason = reason
        }

        /// By line, then action, then reason: the order reports list them in.
        public static func < (lhs: Answer, rhs: Answer) -> Bool {
            (lhs.line, lhs.action, lhs.reason ?? "") < (rhs.line, rhs.action, rhs.reason ?? "")
        }
    }

    /// The policy file as reports name it.
    public var file: String
    /// The lines of `decide` that hold a `return`, in order.
    public var returnLines: [Int]
    /// How many calls of `decide` ended with each answer.
    public var counts: [Answer: Int]

    /// Coverage of `file` with no calls yet.
    public init(file: String, returnLines: [Int], counts: [Answer: Int] = [:]) {
        self.file = file
        self.returnLines = returnLines
        self.counts = counts
    }

    /// The `return` lines no call ended at: decisions no scenario reaches.
    public var neverReached: [Int] {
        let reached = Set(counts.keys.map(\.line))
        return returnLines.filter { !reached.contains($0) }
    }

    /// The `return` lines some call ended at.
    public var reachedReturnCount: Int { returnLines.count - neverReached.count }

    /// The `return` statement a call that ended at `line` belongs to: the nearest `return` line
    /// at or above it (a `return { ... }` spread over lines ends below its keyword).
    public func returnLine(containing line: Int) -> Int {
        returnLines.last { $0 <= line } ?? line
    }

    /// Counts one call of `decide` that ended at `line` with `action` and `reason`.
    public mutating func record(line: Int, action: String, reason: String?) {
        counts[Answer(line: returnLine(containing: line), action: action, reason: reason), default: 0] += 1
    }

    /// Combines the coverage of several runs of the same file.
    public func merged(with other: DecisionCoverage) -> DecisionCoverage {
        var merged = self
        merged.returnLines = Array(Set(returnLines).union(other.returnLines)).sorted()
        merged.counts.merge(other.counts, uniquingKeysWith: +)
        return merged
    }

    /// The lines of `source` between `first` and `last` (inclusive) that hold the word
    /// `return` outside a `--` comment: a textual scan, since the compiled function does not
    /// mark its returns.
    public static func returnLines(in source: String, from first: Int, to last: Int) -> [Int] {
        var found: [Int] = []
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard number >= first, number <= last else { continue }
            let code = line.range(of: "--").map { line[..<$0.lowerBound] } ?? line[...]
            if containsWord("return", in: code) { found.append(number) }
        }
        return found
    }

    private static func containsWord(_ word: String, in text: Substring) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let isIdentifier: (Character?) -> Bool = { $0.map { $0 == "_" || $0.isLetter || $0.isNumber } ?? false }
            if !isIdentifier(before), !isIdentifier(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }
}

/// A policy that can say which of its `return`s answered (Lua policies loaded with coverage on).
public protocol DecisionCoverageReporting {
    /// The decision coverage so far, or `nil` when it is not recorded.
    var decisionCoverage: DecisionCoverage? { get }
}
