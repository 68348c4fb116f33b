import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// A sweep confirms its choice on fresh seeds, so that the chosen setting's figure is not the
/// winner's curse: the best of several equal settings on one run.
@Suite("Sweep: confirmation on fresh seeds")
struct SweepConfirmationTests {
    /// Every setting asks cold once, in the first session, at its `label`-th feature open (of
    /// four): the settings differ in which of the user's random draws answers the dialog, not
    /// in how likely a yes is, so all four have the same true share on day 1: the model's
    /// allow chance, 35%.
    static let source = """
        local opened = 0
        return {
          name = "same",
          params = { label = 1 },
          decide = function(ctx)
            if ctx.event.name ~= "feature_opened" then return nil end
            opened = opened + 1
            if opened == ctx.params.label and ctx.status == "not_determined" then
              return { action = "request_permission", reason = "open" }
            end
          end,
        }
        """

    static func sweep(seed: UInt64, confirmations: Int = 1, workers: Int = 2) async throws -> SweepResult {
        let policy = try SimulationPolicy(source: source, chunkName: "same.lua")
        return try await Sweep.run(
            policy: policy, axes: [SweepAxis(param: "label", values: (1...4).map { .integer($0) })],
            model: try fixedModel(opens: 4), options: SimulationOptions(users: 60, days: 1, seed: seed, workers: workers),
            objective: SweepMetric(name: "reach_day_1", days: 1), constraints: [], confirmations: confirmations)
    }

    /// Over 40 seeds of a null sweep (4 equal settings, 60 users, true share 35%): the winner's
    /// own figure runs high (the best of 4 draws: about +1 standard error, +6 points here) and
    /// its interval misses the truth more often than 5%; the confirmed figure is unbiased and
    /// its interval covers the truth about 95% of the time.
    @Test(.disabled(if: underSanitizer, "a frequency over many runs: make test measures it"))
    func theConfirmedBestIsUnbiasedWhereTheWinnersOwnFigureIsNot() async throws {
        var ownCovers = 0, confirmedCovers = 0
        var ownSum = 0.0, confirmedSum = 0.0
        let seeds = 40
        for seed in 1...UInt64(seeds) {
            let sweep = try await Self.sweep(seed: seed)
            let choice = try #require(sweep.choice)
            let confirmation = try #require(sweep.confirmation)
            let (own, ownInterval) = SweepMetric(name: "reach_day_1", days: 1)!.share(in: sweep.runs[choice.best].result)
            ownSum += own
            confirmedSum += confirmation.share
            if ownInterval.contains(0.35) { ownCovers += 1 }
            if confirmation.interval.contains(0.35) { confirmedCovers += 1 }
            #expect(confirmation.users == 60)
        }
        let ownBias = ownSum / Double(seeds) - 0.35, confirmedBias = confirmedSum / Double(seeds) - 0.35
        // One confirmed figure has a standard error of 6.2 points; the mean of 40, 1.0: 3 points
        // is three of them.
        #expect(abs(confirmedBias) < 0.03, "confirmed bias \(confirmedBias)")
        #expect(ownBias > 0.03, "the winner's own bias \(ownBias)")
        // Binomial(40, 0.95) is 38 ± 1.4; 34 is about three standard deviations below.
        #expect(confirmedCovers >= 34, "confirmed intervals covering 35%: \(confirmedCovers) of 40")
        #expect(ownCovers < confirmedCovers, "own \(ownCovers), confirmed \(confirmedCovers)")
    }

    @Test func theConfirmationIsReportedAndTheSameWhateverTheWorkers() async throws {
        let sweep = try await Self.sweep(seed: 9, confirmations: 2, workers: 1)
        let again = try await Self.sweep(seed: 9, confirmations: 2, workers: 3)
        #expect(sweep.json() == again.json())
        #expect(sweep.confirmations.count == 2)
        #expect(Set(sweep.confirmations.map(\.seed)).count == 2 && !sweep.confirmations.map(\.seed).contains(9))
        let text = sweep.text()
        #expect(text.contains("confirmed on 2 fresh seeds (120 new users): reach_day_1"), "\(text)")
        #expect(text.contains("best again on"))
        let json = try #require(JSONSerialization.jsonObject(with: Data(sweep.json().utf8)) as? [String: Any])
        let best = try #require((json["sweep"] as? [String: Any])?["best"] as? [String: Any])
        let confirmed = try #require(best["confirmation"] as? [String: Any])
        #expect(confirmed["users"] as? Int == 120)
        #expect((confirmed["seeds"] as? [String])?.count == 2)
        let none = try await Self.sweep(seed: 9, confirmations: 0)
        #expect(none.confirmation == nil && !none.text().contains("confirmed on"))
    }
}
