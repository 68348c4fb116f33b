import Foundation
import PermitCore
import PermitInput

/// The readers a user-model file needs beyond the scenario files' YAML reader (which gives
/// file, line, column, field path and "did you mean" for every error).
extension YAMLValue {
    func number() throws(InputError) -> Double {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Double(scalar.string),
            value.isFinite
        else {
            throw error("expected a number, got \(kindName)")
        }
        return value
    }

    /// A chance: a number from 0 to 1 (`0.3`), or a percentage (`30%`); either may carry a
    /// range of plausible values (`0.45 [0.30, 0.60]`, read by `chanceWithRange()`), of which
    /// this is the value.
    func probability() throws(InputError) -> Double {
        try chanceWithRange().value
    }

    /// A chance and, when the file gives one, its range: `0.45 [0.30, 0.60]` or
    /// `45% [30%, 60%]`, low ≤ value ≤ high. Inside a `{ ... }` table YAML ends a plain
    /// value at `[`, so there the whole is quoted: `{ accept: "0.45 [0.30, 0.60]" }`.
    func chanceWithRange() throws(InputError) -> (value: Double, range: ClosedRange<Double>?) {
        if case .scalar(let scalar) = node, let parts = Self.rangeParts(scalar.string) {
            let example = "write VALUE [LOW, HIGH], each a chance, e.g. 0.45 [0.30, 0.60] or 45% [30%, 60%]"
            guard let bounds = parts.bounds else {
                throw error("\"\(scalar.string)\" is not a chance with a range", hint: example)
            }
            func chance(_ text: String, _ what: String) throws(InputError) -> Double {
                guard let value = Self.chance(text) else {
                    throw error("\(what) \"\(text)\" is not a chance from 0 to 1 (like 0.3) or a percentage (like 30%)", hint: example)
                }
                return value
            }
            let value = try chance(parts.value, "the value")
            let low = try chance(bounds.low, "the range's low end")
            let high = try chance(bounds.high, "the range's high end")
            guard low <= value, value <= high else {
                throw error(
                    "the value \(parts.value) is not inside its range [\(bounds.low), \(bounds.high)]",
                    hint: "write low ≤ value ≤ high, e.g. 0.45 [0.30, 0.60]")
            }
            return (value, low...high)
        }
        if case .scalar(let scalar) = node, scalar.style == .plain, scalar.string.hasSuffix("%"),
            let percent = Double(scalar.string.dropLast()), percent.isFinite
        {
            guard (0...100).contains(percent) else {
                throw error("\(scalar.string) is out of range; a chance is 0%–100%")
            }
            return (percent / 100, nil)
        }
        guard let value = try? number() else {
            throw error("expected a chance from 0 to 1 (like 0.3) or a percentage (like 30%), got \(kindName)")
        }
        guard (0...1).contains(value) else {
            throw error("\(value) is out of range; a chance is from 0 to 1 (or write a percentage like 30%)")
        }
        return (value, nil)
    }

    /// Whether this scalar is written as a chance with a range (`0.45 [...]`), well formed or not.
    var looksLikeRange: Bool {
        if case .scalar(let scalar) = node { return Self.rangeParts(scalar.string) != nil }
        return false
    }

    /// `VALUE [LOW, HIGH]` cut into its parts: `nil` when the text has no `[` after a first
    /// word (so it is no range at all); `bounds` `nil` when the bracket is malformed.
    static func rangeParts(_ text: String) -> (value: String, bounds: (low: String, high: String)?)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let open = trimmed.firstIndex(of: "["), open != trimmed.startIndex else { return nil }
        let value = trimmed[..<open].trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty, !value.contains(" ") else { return nil }
        let rest = trimmed[trimmed.index(after: open)...]
        guard rest.hasSuffix("]") else { return (value, nil) }
        let inside = rest.dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard inside.count == 2 else { return (value, nil) }
        let low = inside[0].trimmingCharacters(in: .whitespaces), high = inside[1].trimmingCharacters(in: .whitespaces)
        guard !low.isEmpty, !high.isEmpty else { return (value, nil) }
        return (value, (low, high))
    }

    /// `0.3` or `30%` as a chance, `nil` when it is neither or out of 0–1.
    static func chance(_ text: String) -> Double? {
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), percent.isFinite, (0...100).contains(percent) else { return nil }
            return percent / 100
        }
        guard let value = Double(text), value.isFinite, (0...1).contains(value) else { return nil }
        return value
    }
}
