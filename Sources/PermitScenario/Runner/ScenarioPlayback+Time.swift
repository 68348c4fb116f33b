import Foundation
import PermitCore

extension ScenarioPlayback {
    /// Moves the clock by a step's `after`. Each midnight and daylight-saving switch it crosses
    /// is a significant time change (docs/platform.md Z-03): an app in the foreground hears it
    /// at that moment, before the step's own action; a suspended one has it queued, coalesced
    /// with any other, for its next return to the foreground; an app not running hears nothing.
    /// Returns what the app heard now, and notes for the step.
    mutating func passTime(_ seconds: TimeInterval) async -> (outcomes: [Outcome], notes: [String]) {
        let end = clock.now().addingTimeInterval(seconds)
        guard seconds > 0, let engine = process?.engine else {
            clock.set(end)
            return ([], [])
        }
        let zone = device.timeZone
        let moments = SignificantTimeChanges.between(clock.now(), end, in: zone)
        guard !moments.isEmpty else {
            clock.set(end)
            return ([], [])
        }
        var outcomes: [Outcome] = []
        var notes: [String] = []
        if device.isInForeground {
            for moment in moments {
                clock.set(moment)
                outcomes.append(await engine.handle(.significantTimeChange(timeZone: zone)))
            }
            notes.append(
                "\(Self.describe(moments, in: zone)) passed while the app was in the foreground: it heard significant_time_change "
                    + (moments.count == 1 ? "then" : "at each"))
        } else {
            notes.append(
                "\(Self.describe(moments, in: zone)) passed while the app was suspended: iOS queues significant_time_change "
                    + (queuedTimeChange == nil ? "until it returns to the foreground" : "with the one already waiting (coalesced)"))
            queuedTimeChange = queuedTimeChange ?? zone
        }
        clock.set(end)
        return (outcomes, notes)
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
