import Foundation
import PermitCore
import PermitInput

/// How some of the model's users travel between time zones (`travel:` in the model file).
/// A traveller's device changes zone on the way out and back, and the app hears
/// `significant_time_change`, as in a scenario's `timezone:` step: the local day, quiet hours
/// and reminder fire dates follow the new zone.
public struct Travel: Sendable, Hashable {
    /// The chance that a user travels at all (drawn once, with who they are).
    public var share: Double
    /// A traveller's trips per 30 days: a trip starts on each day at home with chance
    /// `tripsPerMonth / 30`.
    public var tripsPerMonth: Double
    /// Days away per trip (at least 1).
    public var stayDays: CountDistribution
    /// Where trips go: a share per IANA time zone.
    public var zones: Weighted<TimeZone>

    /// One change of the device's zone: on `day` (0-based), before that day's sessions.
    struct Change: Sendable, Hashable {
        let day: Int
        let zone: TimeZone
    }

    /// A user's trips over `days` days, drawn from their own travel stream (the same under every
    /// policy, like who they are): the zone changes, the way out and back home.
    func itinerary(days: Int, home: TimeZone, rng: inout SplitMix64) -> [Change] {
        guard rng.chance(share) else { return [] }
        var changes: [Change] = []
        var day = 1
        while day < days {
            guard rng.chance(min(1, tripsPerMonth / 30)) else {
                day += 1
                continue
            }
            let destination = zones.pick(&rng)
            let stay = max(1, stayDays.sample(&rng))
            if destination != home {
                changes.append(Change(day: day, zone: destination))
                if day + stay < days { changes.append(Change(day: day + stay, zone: home)) }
            }
            day += stay + 1
        }
        return changes
    }

    /// `travel: { share: 0.1, trips_per_month: 1, stay_days: { uniform: [2, 7] }, zones: { Asia/Tokyo: 1 } }`,
    /// every key required.
    static func parse(_ node: YAMLValue) throws(InputError) -> Travel {
        let keys = ["share", "trips_per_month", "stay_days", "zones"]
        let fields = try node.fields(allowed: keys)
        for key in keys where fields[key] == nil {
            throw node.error(
                "missing \"\(key)\"",
                hint: "write e.g. { share: 0.1, trips_per_month: 1, stay_days: { uniform: [2, 7] }, zones: { America/New_York: 1 } }")
        }
        let trips = try fields["trips_per_month"]!.number()
        guard (0...30).contains(trips) else {
            throw fields["trips_per_month"]!.error("\(trips) is out of range; trips per month are from 0 to 30")
        }
        return Travel(
            share: try fields["share"]!.probability(), tripsPerMonth: trips,
            stayDays: try CountDistribution.parse(fields["stay_days"]!), zones: try Weighted.zones(fields["zones"]!))
    }
}
