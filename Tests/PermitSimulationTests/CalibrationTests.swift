import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// `examples/models/default.yaml` against the published figures docs/simulate.md cites for it
/// ("Calibration"): a cold ask at the first launch lands on the 2015–2016 iOS opt-in averages
/// (40%, 41%, 42%), a single primer lifts that by the 30–40% vendors report, and `polite`, which
/// primes up to three times, stays where the docs say it departs from the 40–51% range.
@Suite("Default model calibration")
struct CalibrationTests {
    /// The reference policies the calibration runs (`Tests/calibration/*.lua`).
    static func reference(_ name: String) throws -> SimulationPolicy {
        try SimulationPolicy.load(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/calibration/\(name).lua"), displayName: "\(name).lua")
    }

    /// The cited cold-ask averages, the tolerance around them, the cited lift, and its tolerance.
    static let coldBenchmark = 0.40...0.42
    static let coldTolerance = 0.01
    static let liftBenchmark = 0.30...0.40
    static let liftTolerance = 0.05
    /// polite's day-30 reach as docs/simulate.md states it, and how far the run may stray.
    static let politeDocumented = 0.80
    static let politeTolerance = 0.03

    @Test(.disabled(if: underSanitizer, "a frequency over many runs: make test measures it"))
    func theDefaultModelReproducesTheBenchmarksItCites() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let result = await Simulation.run(
            policies: [try Self.reference("cold-ask"), try Self.reference("single-primer"), try pack("polite")], model: model,
            options: SimulationOptions(users: 4_000, days: 30, seed: 1, workers: 2))
        let cold = result.policies[0], primer = result.policies[1], polite = result.policies[2]
        #expect(cold.errors.isEmpty && primer.errors.isEmpty && polite.errors.isEmpty)

        // (a) The cold ask: the day-30 share within the cited averages ± the tolerance, and its
        // interval reaching into them.
        let coldShare = cold.share(.fullAlerts, day: 30)
        let coldInterval = cold.interval(.fullAlerts, day: 30)
        #expect(
            (Self.coldBenchmark.lowerBound - Self.coldTolerance...Self.coldBenchmark.upperBound + Self.coldTolerance)
                .contains(coldShare), "cold ask \(coldShare) \(coldInterval)")
        #expect(coldInterval.low <= Self.coldBenchmark.upperBound && coldInterval.high >= Self.coldBenchmark.lowerBound)
        #expect(cold.answers.dialogsCold > 3_900, "every user was asked once, cold")

        // (b) The primer's lift over the cold ask, with a delta-method interval (the two shares
        // taken as independent: wider than the paired truth).
        let primerShare = primer.share(.fullAlerts, day: 30)
        let lift = Self.lift(primer: primerShare, cold: coldShare, users: 4_000)
        #expect(
            (Self.liftBenchmark.lowerBound - Self.liftTolerance...Self.liftBenchmark.upperBound + Self.liftTolerance)
                .contains(lift.estimate), "primer \(primerShare), lift \(lift)")
        #expect(lift.low <= Self.liftBenchmark.upperBound && lift.high >= Self.liftBenchmark.lowerBound, "\(lift)")
        #expect(primer.answers.softPrompts > 3_900 && primer.answers.dialogsCold == 0)

        // (c) polite primes up to three times and re-asks in Settings: above the single primer,
        // and where docs/simulate.md says it lands (above the cited 40–51%, and why).
        let politeShare = polite.share(.fullAlerts, day: 30)
        #expect(politeShare > primerShare)
        #expect(abs(politeShare - Self.politeDocumented) <= Self.politeTolerance, "polite \(politeShare)")
    }

    /// primer ÷ cold − 1, and its 95% interval by the delta method.
    static func lift(primer: Double, cold: Double, users: Int) -> (estimate: Double, low: Double, high: Double) {
        let ratio = primer / cold
        let n = Double(users)
        let relative = ((1 - primer) / (primer * n) + (1 - cold) / (cold * n)).squareRoot()
        return (ratio - 1, ratio * exp(-1.96 * relative) - 1, ratio * exp(1.96 * relative) - 1)
    }

    @Test func theLiftIntervalCoversTheRatioOfItsShares() {
        let lift = Self.lift(primer: 0.55, cold: 0.41, users: 4_000)
        #expect(abs(lift.estimate - (0.55 / 0.41 - 1)) < 1e-12)
        #expect(lift.low < lift.estimate && lift.estimate < lift.high)
        // At 4,000 users a side the shares are ±1.5 pp: the lift is known to about ±6 points.
        #expect((0.04...0.08).contains(lift.high - lift.estimate), "\(lift)")
    }
}
