import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// `--sweep`: a grid of params of one policy, the best feasible setting and how sure it is.
@Suite("Sweep")
struct SweepTests {
    static let source = KnobPolicy.source

    static let axes = [
        SweepAxis(param: "ask", values: [.bool(false), .bool(true)]),
        SweepAxis(param: "quiet", values: [.bool(false), .bool(true)]),
    ]

    static func run(objective: String, constraints: [String] = [], workers: Int = 2) async throws -> SweepResult {
        let policy = try SimulationPolicy(source: source, chunkName: "knob.lua")
        return try await Sweep.run(
            policy: policy, axes: axes, model: try fixedModel(),
            options: SimulationOptions(users: 200, days: 2, seed: 3, workers: workers),
            objective: SweepMetric(name: objective, days: 2),
            constraints: try constraints.map { try SweepConstraint.parse($0, days: 2) })
    }

    static func params(_ run: SweepResult.Run) -> [String] { run.params.map { "\($0.0)=\($0.1)" } }

    @Test func theGridIsTheCartesianProductFirstAxisSlowest() {
        let grid = Sweep.grid(Self.axes).map { $0.map { "\($0.0)=\($0.1)" } }
        #expect(
            grid == [
                ["ask=false", "quiet=false"], ["ask=false", "quiet=true"],
                ["ask=true", "quiet=false"], ["ask=true", "quiet=true"],
            ])
    }

    @Test func theKnownOptimumIsFoundWithAClearDifference() async throws {
        let sweep = try await Self.run(objective: "reach_day_2")
        let choice = try #require(sweep.choice)
        #expect(Self.params(sweep.runs[choice.best]) == ["ask=true", "quiet=false"])
        // Every other setting gives nobody alerts (quiet users stay quiet in this model); the
        // tie goes to the earliest.
        #expect(choice.runnerUp == 0)
        #expect(sweep.runs[3].result.count(.fullAlerts, day: 2) == 0)
        #expect(try #require(choice.difference).verdict == .clearDifference)
        // Nobody asked: nobody can receive alerts, everybody is never asked.
        #expect(sweep.runs[0].result.count(.fullAlerts, day: 2) == 0)
        #expect(sweep.runs[0].result.count(.neverAsked, day: 2) == 200)

        let quiet = try #require(try await Self.run(objective: "quiet_day_2").choice)
        #expect(quiet.best == 3)
    }

    @Test func aConstraintRulesSettingsOutAndTiesGoToTheEarlierSetting() async throws {
        // Only settings that never ask keep never_asked at 100%; they tie on reach (0).
        let sweep = try await Self.run(objective: "reach_day_2", constraints: ["never_asked_day_2>=100%"])
        let choice = try #require(sweep.choice)
        #expect(choice.best == 0 && choice.runnerUp == 1)
        #expect(try #require(choice.difference).verdict == .tooCloseToCall)
        #expect(sweep.runs.map(sweep.isFeasible) == [true, true, false, false])
        #expect(sweep.text().contains("uncorrected: includes 0"), "the runner-up difference is one uncorrected comparison")

        let none = try await Self.run(objective: "reach_day_2", constraints: ["never_asked_day_2<=0%", "reach_day_2>=100%"])
        #expect(none.choice == nil)
        #expect(none.text().contains("no setting meets the constraints"))
    }

    @Test func combinationsMeetTheSameUsersWhateverTheWorkers() async throws {
        let one = try await Self.run(objective: "reach_day_2", workers: 1)
        let three = try await Self.run(objective: "reach_day_2", workers: 3)
        #expect(one.json() == three.json())
        // Same seed per combination: ask=true, quiet=false equals the policy run alone.
        let alone = await Simulation.run(
            policies: [try SimulationPolicy(source: Self.source, chunkName: "knob.lua")], model: try fixedModel(),
            options: SimulationOptions(users: 200, days: 2, seed: 3, workers: 2))
        #expect(one.runs[2].result.count(.fullAlerts, day: 2) == alone.policies[0].count(.fullAlerts, day: 2))
    }

    @Test func metricsAndConstraintsParseOrSayWhy() throws {
        #expect(SweepMetric(name: "reach_day_30", days: 30)?.reach == .fullAlerts)
        #expect(SweepMetric(name: "reach_day_31", days: 30) == nil)
        #expect(SweepMetric(name: "uninstalls", days: 30)?.higherIsBetter == false)
        let bound = try SweepConstraint.parse("uninstalls <= 2%", days: 30)
        #expect(bound.atMost && bound.bound == 0.02 && bound.description == "uninstalls<=2%")
        #expect(throws: SweepConstraint.ParseError.malformed) { try SweepConstraint.parse("uninstalls<2%", days: 30) }
        #expect(throws: SweepConstraint.ParseError.malformed) { try SweepConstraint.parse("uninstalls<=2", days: 30) }
        #expect(throws: SweepConstraint.ParseError.unknownMetric("uninstals")) {
            try SweepConstraint.parse("uninstals<=2%", days: 30)
        }
    }
}
