import Foundation
import PermitCore

/// The features and events a policy names, read from its source and its default params, so a
/// run can warn when the model never produces them (`SimulationWarning`).
///
/// A best effort, not an analysis of the Lua: it finds the comparisons policies write
/// (`ctx.event.feature == "x"`, `ctx.event.name == "x"`, `event ~= "x"` on a local named
/// `event`) and the packs' convention of a `features` param listing the features that need
/// notifications. A policy that builds names at run time is not seen (no false warning either).
enum PolicyNames {
    static let featurePattern = #"event\.feature\s*[=~]=\s*["']([^"']+)["']"#
    static let eventPattern = #"(?:event\.name|\bevent)\s*[=~]=\s*["']([^"']+)["']"#

    /// Features: the `features` param's strings, then literals compared with `ctx.event.feature`.
    static func features(source: String, defaultParams: [String: PolicyValue]) -> [String] {
        var names: [String] = []
        if case .list(let items)? = defaultParams["features"] {
            for case .string(let name) in items { names.append(name) }
        }
        return unique(names + literals(matching: featurePattern, in: source))
    }

    /// Events: literals compared with `ctx.event.name` (or a local `event`).
    static func events(source: String) -> [String] { unique(literals(matching: eventPattern, in: source)) }

    private static func literals(matching pattern: String, in source: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(source.startIndex..., in: source)
        return expression.matches(in: source, range: range).compactMap { match in
            Range(match.range(at: 1), in: source).map { String(source[$0]) }
        }
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
