import Foundation
import PermitCore
import PermitSimulator

extension ScenarioPlayback {
    /// The note for the midnights and daylight-saving switches a step's `after` crossed while
    /// the app had a process (docs/platform.md Z-03), or nil when it crossed none.
    static func note(for passed: SimulatedApp.PassedTime, in zone: TimeZone) -> String? {
        guard !passed.moments.isEmpty else { return nil }
        let what = describe(passed.moments, in: zone)
        if passed.queued {
            return "\(what) passed while the app was suspended: iOS queues significant_time_change until it returns "
                + "to the foreground (coalesced with any other)"
        }
        return "\(what) passed while the app was in the foreground: it heard significant_time_change "
            + (passed.moments.count == 1 ? "then" : "at each")
    }

    /// "midnight", "a daylight-saving switch", "2 midnights and a daylight-saving switch": a
    /// moment where the offset changes is a switch (a midnight it moves counts as the switch).
    private static func describe(_ moments: [Date], in zone: TimeZone) -> String {
        let switches = moments.filter {
            zone.secondsFromGMT(for: $0.addingTimeInterval(-1)) != zone.secondsFromGMT(for: $0)
        }.count
        let midnights = moments.count - switches
        var parts: [String] = []
        if midnights > 0 { parts.append(midnights == 1 ? "midnight" : "\(midnights) midnights") }
        if switches > 0 { parts.append(switches == 1 ? "a daylight-saving switch" : "\(switches) daylight-saving switches") }
        return parts.joined(separator: " and ")
    }
}
