import Foundation
import PermitCore
import Testing

@testable import PermitSimulation

/// A constraint is judged on the share's 95% interval, not on the share alone: a setting
/// "meets" a bound when its whole interval is within it, "may meet" it when only its share is.
@Suite("Sweep constraints")
struct SweepConstraintTests {
    /// `base`'s runs judged under other bounds (each test runs the knob sweep once: 400 users, 2 days).
    static func judged(_ base: SweepResult, _ constraints: [SweepConstraint]) -> SweepResult {
        SweepResult(
            simulation: base.simulation, axes: base.axes, runs: base.runs, objective: base.objective,
            constraints: constraints)
    }

    static let denied = SweepMetric(name: "denied_day_2", days: 2)!

    @Test func theStatusComesFromTheIntervalNotTheShareAlone() async throws {
        let base = try await SweepTests.run(objective: "reach_day_2")
        // ask=true, quiet=false: the users who did not allow are denied (about 65%).
        let (share, interval) = Self.denied.share(in: base.runs[2].result)
        #expect(interval.low < share && share < interval.high)
        let between = (share + interval.high) / 2  // above the share, below its upper end
        let bounds = [
            (SweepConstraint(metric: Self.denied, atMost: true, bound: interval.high + 0.001), SweepConstraint.Status.meets),
            (SweepConstraint(metric: Self.denied, atMost: true, bound: between), .mayMeet),
            (SweepConstraint(metric: Self.denied, atMost: true, bound: share - 0.001), .breaks),
            (SweepConstraint(metric: Self.denied, atMost: false, bound: interval.low - 0.001), .meets),
            (SweepConstraint(metric: Self.denied, atMost: false, bound: (share + interval.low) / 2), .mayMeet),
            (SweepConstraint(metric: Self.denied, atMost: false, bound: share + 0.001), .breaks),
        ]
        for (bound, expected) in bounds {
            #expect(bound.status(of: base.runs[2].result) == expected, "\(bound)")
            #expect(bound.isMet(by: base.runs[2].result) == (expected != .breaks))
        }
        // The worst of several constraints is the run's status.
        let both = Self.judged(base, [bounds[0].0, bounds[1].0])
        #expect(both.status(of: both.runs[2]) == .mayMeet)
    }

    @Test func aBestThatOnlyMayMeetNamesTheBestSettingThatSurelyDoes() async throws {
        let base = try await SweepTests.run(objective: "reach_day_2")
        let (share, interval) = Self.denied.share(in: base.runs[2].result)
        let sweep = Self.judged(base, [SweepConstraint(metric: Self.denied, atMost: true, bound: (share + interval.high) / 2)])
        let choice = try #require(sweep.choice)
        // The best on reach is still ask=true, quiet=false (its share is within the bound) ...
        #expect(choice.best == 2)
        #expect(choice.constraints == .mayMeet)
        // ... and the settings that deny nobody surely meet it: the earliest of them is named,
        // with what it costs on the objective.
        #expect(sweep.runs.map { sweep.status(of: $0) } == [.meets, .meets, .mayMeet, .meets])
        #expect(choice.surelyMeeting == 0)
        let cost = try #require(choice.surelyMeetingDifference)
        #expect(cost.value > 0.2 && cost.verdict == .clearDifference)
        let text = sweep.text()
        #expect(text.contains("may meet the constraints"))
        #expect(text.contains("the best setting that surely meets them: ask=false quiet=false (reach_day_2 -"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(sweep.json().utf8)) as? [String: Any])
        let best = try #require((json["sweep"] as? [String: Any])?["best"] as? [String: Any])
        #expect(best["constraints"] as? String == "may meet")
        let safer = try #require(best["surely_meeting"] as? [String: Any])
        #expect(safer["params"] as? [String: Bool] == ["ask": false, "quiet": false])
        #expect(safer["verdict"] as? String == "uncorrected: excludes 0")
        let runs = try #require((json["sweep"] as? [String: Any])?["runs"] as? [[String: Any]])
        #expect(runs.map { $0["constraints"] as? String } == ["meets", "meets", "may meet", "meets"])

        // A bound the best surely meets says so, and names no other setting.
        let sure = Self.judged(base, [SweepConstraint(metric: Self.denied, atMost: true, bound: interval.high + 0.001)])
        let sureChoice = try #require(sure.choice)
        #expect(sureChoice.best == 2 && sureChoice.constraints == .meets && sureChoice.surelyMeeting == nil)
        #expect(sure.text().contains("meets the constraints: every 95% interval is within its bound (denied_day_2 "))
    }

    /// With several constraints, each setting's status under each bound is reported, in the
    /// table (a column per bound, then the overall one) and in the JSON (`by_constraint`): the
    /// overall status alone does not say which bound a setting breaks.
    @Test func eachConstraintsStatusIsReportedBesideTheOverallOne() async throws {
        let base = try await SweepTests.run(objective: "reach_day_2")
        let (share, interval) = Self.denied.share(in: base.runs[2].result)
        let loose = SweepConstraint(metric: Self.denied, atMost: true, bound: interval.high + 0.001)
        let tight = SweepConstraint(metric: Self.denied, atMost: true, bound: share - 0.001)
        let sweep = Self.judged(base, [loose, tight])
        #expect(loose.status(of: base.runs[2].result) == .meets && tight.status(of: base.runs[2].result) == .breaks)

        let json = try #require(try JSONSerialization.jsonObject(with: Data(sweep.json().utf8)) as? [String: Any])
        let runs = try #require((json["sweep"] as? [String: Any])?["runs"] as? [[String: Any]])
        let each = try #require(runs[2]["by_constraint"] as? [[String: String]])
        #expect(
            each == [
                ["constraint": loose.description, "status": "meets"],
                ["constraint": tight.description, "status": "breaks"],
            ])
        #expect(runs[2]["constraints"] as? String == "breaks")
        // A setting that denies nobody meets both.
        #expect((runs[0]["by_constraint"] as? [[String: String]])?.map { $0["status"] } == ["meets", "meets"])

        let lines = sweep.text().split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("ask") })
        #expect(header.contains(loose.description) && header.contains(tight.description) && header.hasSuffix("constraints"))
        let row = try #require(lines.first { $0.hasPrefix("true") && $0.contains("false") && !$0.contains("quiet") })
        #expect(row.contains("meets") && row.hasSuffix("breaks"))

        // One constraint keeps the single column.
        let single = Self.judged(base, [tight]).text()
        #expect(!single.contains(tight.description + "  "))
    }
}
