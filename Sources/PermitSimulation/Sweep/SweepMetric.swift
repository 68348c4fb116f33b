import Foundation

/// A figure a sweep can optimise or constrain, named as on the command line (`reach_day_30`,
/// `uninstalls`), counted out of all the users of one combination so every figure has a Wilson
/// interval and two combinations a paired difference (they meet the same users).
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

    /// How sure it is that a setting meets a bound, from its share's 95% interval: a simulated
    /// share moves with the seed, so a point just inside the bound does not show that the
    /// model's rate is inside it.
    public enum Status: String, Sendable, Comparable {
        /// The whole 95% interval is within the bound (`<=`: its upper end; `>=`: its lower end).
        case meets
        /// The share is within the bound but its interval crosses it: more users may tell.
        case mayMeet = "may meet"
        /// The share itself is beyond the bound.
        case breaks

        private var rank: Int { self == .meets ? 0 : self == .mayMeet ? 1 : 2 }

        /// The surer status orders first, so the worst of several is their `max()`.
        public static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
    }

    /// Whether `result` meets it: surely (its interval within the bound), maybe (only its
    /// share), or not (its share beyond the bound).
    public func status(of result: PolicyResult) -> Status {
        let (share, interval) = metric.share(in: result)
        return status(share: share, interval: interval)
    }

    /// The status of a share with its interval against the bound.
    public func status(share: Double, interval: Interval) -> Status {
        guard atMost ? share <= bound : share >= bound else { return .breaks }
        return (atMost ? interval.high <= bound : interval.low >= bound) ? .meets : .mayMeet
    }

    /// Whether `result`'s share is within the bound (it meets or may meet it): the settings the
    /// best is chosen from, the share being the best estimate of the model's rate.
    public func isMet(by result: PolicyResult) -> Bool { status(of: result) != .breaks }

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
