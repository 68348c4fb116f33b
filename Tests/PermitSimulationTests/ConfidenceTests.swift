import Foundation
import PermitTestSupport
import Testing

@testable import PermitSimulation

@Suite("Confidence")
struct ConfidenceTests {
    /// Published worked examples: Newcombe, "Two-sided confidence intervals for the single
    /// proportion" (Stat. Med. 1998;17:857–872), 81/263 → 0.2553–0.3662 and 0/10 → 0–0.2775;
    /// Newcombe, "Interval estimation for the difference between independent proportions"
    /// (Stat. Med. 1998;17:873–890), 56/70 − 48/80, method 10 → 0.0524–0.3339.
    @Test func matchesPublishedWorkedExamples() {
        let wilson = Confidence.wilson(successes: 81, of: 263)
        #expect(abs(wilson.low - 0.2553) < 0.00005 && abs(wilson.high - 0.3662) < 0.00005)
        let none = Confidence.wilson(successes: 0, of: 10)
        #expect(none.low == 0 && abs(none.high - 0.2775) < 0.00005)
        let all = Confidence.wilson(successes: 10, of: 10)
        #expect(abs(all.low - 0.7225) < 0.00005 && all.high <= 1)
        let difference = Confidence.difference((56, 70), minus: (48, 80))
        #expect(abs(difference.value - 0.2) < 1e-12)
        #expect(abs(difference.interval.low - 0.0524) < 0.00005 && abs(difference.interval.high - 0.3339) < 0.00005)
        #expect(difference.verdict == .clearDifference)
    }

    @Test func verdictFollowsWhetherTheIntervalExcludesZero() {
        #expect(Confidence.difference((52, 100), minus: (48, 100)).verdict == .tooCloseToCall)
        #expect(Confidence.difference((48, 100), minus: (52, 100)).verdict == .tooCloseToCall)
        #expect(Confidence.difference((5_200, 10_000), minus: (4_800, 10_000)).verdict == .clearDifference)
        #expect(Confidence.difference((4_800, 10_000), minus: (5_200, 10_000)).verdict == .clearDifference)
        #expect(Confidence.wilson(successes: 0, of: 0) == Interval(low: 0, high: 1))
    }

    /// The intervals keep their promise on the simulation itself: a policy that asks every user
    /// cold on the first launch, in a model where the dialog is allowed with chance 0.35, has a
    /// true day-1 "can receive alerts" share of exactly 0.35; one that asks only users in
    /// buckets 0–49 (half of them, drawn uniformly) has 0.175, so their true difference is 0.175.
    /// Over 200 seeds of 100 users, a 95% interval should cover the truth in about 190 runs:
    /// the count is Binomial(200, 0.95) (sd ≈ 3.1), so 180–199 (90%–99.5%) is a 3-sd band.
    /// The seeds are fixed, so the test cannot flake. The difference's interval (Newcombe's,
    /// which assumes independent samples) is conservative on the same users: it must cover at
    /// least as often.
    @Test func intervalsCoverTheTrueRateInAbout95PercentOfSeededRuns() async throws {
        let everyone = try inline("everyone", """
            if ctx.event.name == "app_launch" and ctx.status == "not_determined" then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let half = try inline("half", """
            if ctx.event.name == "app_launch" and ctx.status == "not_determined" and ctx.user.bucket < 50 then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let model = try fixedModel()  // allow_cold 0.35, no annoyance, iOS 17.5
        let runs = 200
        // The seeds run in four chunks at once: each chunk's counts depend only on its seeds,
        // so the sums are the same whatever the scheduling (the test's cost is its CPU alone).
        let counts = try await withTimeout(.seconds(600)) {
            await withTaskGroup(of: (Int, Int, Int).self) { group in
                for chunk in 0..<4 {
                    group.addTask {
                        var rateHits = 0, halfHits = 0, differenceHits = 0
                        for seed in stride(from: 1 + chunk, through: runs, by: 4) {
                            let result = await Simulation.run(
                                policies: [everyone, half], model: model,
                                options: SimulationOptions(users: 100, days: 1, seed: UInt64(seed), workers: 1))
                            if result.policies[0].interval(.fullAlerts, day: 1).contains(0.35) { rateHits += 1 }
                            if result.policies[1].interval(.fullAlerts, day: 1).contains(0.175) { halfHits += 1 }
                            if result.policies[0].difference(.fullAlerts, day: 1, from: result.policies[1]).interval
                                .contains(0.175) { differenceHits += 1 }
                        }
                        return (rateHits, halfHits, differenceHits)
                    }
                }
                return await group.reduce((0, 0, 0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
            }
        }
        let (rateCovered, halfCovered, differenceCovered) = counts
        #expect((180...199).contains(rateCovered), "the interval covered 0.35 in \(rateCovered) of \(runs) runs")
        #expect((180...199).contains(halfCovered), "the interval covered 0.175 in \(halfCovered) of \(runs) runs")
        #expect(differenceCovered >= 180, "the difference's interval covered 0.175 in \(differenceCovered) of \(runs) runs")
    }
}
