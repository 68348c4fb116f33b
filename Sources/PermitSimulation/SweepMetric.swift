import Foundation

/// A figure a sweep can optimise or constrain, named as on the command line (`reach_day_30`,
/// `uninstalls`), counted out of all the users of one combination so every figure has a Wilson
/// interval and two combinations have a Newcombe difference.
public struct SweepMetric: Sendable, Hashable, CustomStringConvertible {
    /// The reach state counted, or `nil` for users without the app (uninstalls).
    public let reach: Reach?
    /// The day (1-based) it is read at; uninstalls are read on the run's last day.
    public let day: Int

    /// The name as written: `reach_day_N` (can receive alerts), `quiet_day_N`, `ephemeral_day_N`,
    /// `denied_day_N`, `never_asked_day_N`, or `uninstalls`.
    public var description: String {
        guard let reach else { return "uninstalls" }
        return "\(Self.prefix(reach))_day_\(day)"
    }

    /// Whether more is better: reach of any kind; fewer denials, never-asked and uninstalls.
    public var higherIsBetter: Bool { reach == .fullAlerts || reach == .quiet || reach == .ephemeral }

    /// Reads a name for a run of `days` days; `nil` for a name the report does not have.
    public init?(name: String, days: Int) {
        if name == "uninstalls" {
            reach = nil
            day = days
            return
        }
        for state in Reach.allCases {
            let prefix = Self.prefix(state) + "_day_"
            if name.hasPrefix(prefix), let day = Int(name.dropFirst(prefix.count)), (1...days).contains(day) {
                reach = state
                self.day = day
                return
            }
        }
        return nil
    }

    /// The names a run of `days` days offers, for "did you mean" hints.
    public static func names(days: Int) -> [String] {
        Reach.allCases.map { "\(prefix($0))_day_\(days)" } + ["uninstalls"]
    }

    /// Users of `result` this metric counts.
    public func count(in result: PolicyResult) -> Int { result.count(reach, day: day) }

    /// The share of `result`'s users, with its 95% interval.
    public func share(in result: PolicyResult) -> (value: Double, interval: Interval) {
        (result.share(reach, day: day), result.interval(reach, day: day))
    }

    /// The headline (full alerts) is "reach"; the other states keep their report names.
    private static func prefix(_ reach: Reach) -> String { reach == .fullAlerts ? "reach" : reach.rawValue }
}

/// A bound a sweep's best setting must meet, e.g. `uninstalls<=2%`.
public struct SweepConstraint: Sendable, Hashable, CustomStringConvertible {
    /// The figure bounded.
    public let metric: SweepMetric
    /// `<=` when true, `>=` when false.
    public let atMost: Bool
    /// The bound as a share (2% is 0.02).
    public let bound: Double

    /// `metric<=N%` or `metric>=N%`.
    public var description: String {
        "\(metric)\(atMost ? "<=" : ">=")\(String(format: "%g", bound * 100))%"
    }

    /// Whether `result` meets it, on the point estimate (the report shows the interval beside it).
    public func isMet(by result: PolicyResult) -> Bool {
        let share = metric.share(in: result).value
        return atMost ? share <= bound : share >= bound
    }

    /// Why a constraint text cannot be read.
    public enum ParseError: Error, Sendable, Equatable {
        /// No `<=` or `>=`, or no percentage 0–100 after it.
        case malformed
        /// The metric name is not one the report has.
        case unknownMetric(String)
    }

    /// Reads `metric<=N%` / `metric>=N%` for a run of `days` days.
    public static func parse(_ text: String, days: Int) throws(ParseError) -> SweepConstraint {
        let compact = text.filter { !$0.isWhitespace }
        for (symbol, atMost) in [("<=", true), (">=", false)] {
            guard let range = compact.range(of: symbol) else { continue }
            let name = String(compact[..<range.lowerBound])
            var number = String(compact[range.upperBound...])
            guard number.hasSuffix("%") else { throw .malformed }
            number.removeLast()
            guard let percent = Double(number), (0...100).contains(percent), !name.isEmpty else { throw .malformed }
            guard let metric = SweepMetric(name: name, days: days) else { throw .unknownMetric(name) }
            return SweepConstraint(metric: metric, atMost: atMost, bound: percent / 100)
        }
        throw .malformed
    }
}
