import Foundation
import PermitCore
import Testing

@testable import PermitSimulation

/// The live A/B test a report plans, against published worked figures.
@Suite("live-test plan")
struct LiveTestPlanTests {
    @Test func theNormalQuantilesAreTheTabulatedOnes() {
        #expect(abs(Normal.quantile(0.975) - 1.959_964) < 1e-6)
        #expect(abs(Normal.quantile(0.8) - 0.841_621) < 1e-6)
        #expect(abs(Normal.quantile(0.995) - 2.575_829) < 1e-6)
        #expect(abs(Normal.quantile(0.5)) < 1e-9)
    }

    /// 10% against 15%, two-sided 5%, 80% power: 686 per group without continuity correction
    /// (Fleiss, Levin & Paik 2003, §4.2; the tables of sample-size software agree).
    @Test func tenAgainstFifteenPercentNeeds686PerArm() {
        let plan = LiveTestPlan(control: 0.10, treatment: 0.15)
        #expect(plan.installsPerArm == 686)
        // Symmetric in the two arms.
        #expect(LiveTestPlan(control: 0.15, treatment: 0.10).installsPerArm == 686)
    }

    @Test func aStricterLevelOrASmallerEffectNeedsMoreInstalls() throws {
        let base = try #require(LiveTestPlan(control: 0.40, treatment: 0.45).installsPerArm)
        let strict = try #require(LiveTestPlan(control: 0.40, treatment: 0.45, alpha: 0.01).installsPerArm)
        let smaller = try #require(LiveTestPlan(control: 0.40, treatment: 0.42).installsPerArm)
        #expect(strict > base && smaller > base)
        // Half the effect needs about four times the installs.
        let half = try #require(LiveTestPlan(control: 0.40, treatment: 0.425).installsPerArm)
        #expect(Double(half) / Double(base) > 3.7 && Double(half) / Double(base) < 4.2)
        #expect(LiveTestPlan(control: 0.3, treatment: 0.3).installsPerArm == nil)
    }

    /// The report plans each policy against the first, on the headline share, at `--alpha`.
    @Test func theReportPlansEachPolicyAgainstTheFirst() async throws {
        let never = try SimulationPolicy(
            source: "return { name = \"never\", decide = function(ctx) return nil end }", chunkName: "never.lua")
        let asks = try SimulationPolicy(
            source: """
                return { name = "asks", decide = function(ctx)
                  if ctx.event.name == "app_launch" and ctx.status == "not_determined" then
                    return { action = "request_permission", reason = "launch" }
                  end
                end }
                """, chunkName: "asks.lua")
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        var result = await Simulation.run(
            policies: [never, asks], model: model, options: SimulationOptions(users: 300, days: 2, seed: 2))
        result.alpha = 0.01
        let plan = try #require(result.liveTestPlans.first)
        #expect(plan.policy == "asks" && plan.plan.alpha == 0.01)
        #expect(plan.plan.control == 0 && plan.plan.treatment == result.policies[1].share(.fullAlerts, day: 2))
        let json = try #require(JSONSerialization.jsonObject(with: Data(result.json().utf8)) as? [String: Any])
        let second = try #require((json["policies"] as? [[String: Any]])?.last)
        let live = try #require(second["live_test"] as? [String: Any])
        #expect(live["installs_per_arm"] as? Int == plan.plan.installsPerArm)
        #expect(live["alpha"] as? Double == 0.01 && live["metric"] as? String == "can_receive_alerts_day_2")
        #expect(result.text().contains("the live test is what decides"))
    }
}

/// The median time to alerts over all users, with its order-statistic interval.
@Suite("time to alerts")
struct TimeToAlertsTests {
    /// 100 users reaching alerts after 1, 2, ... 100 hours: the median is 50.5 h and the
    /// distribution-free 95% interval runs from the 40th to the 61st value (Conover 1999's table
    /// for n = 100).
    @Test func theIntervalIsThe40thTo61stOf100() {
        let time = TimeToAlerts(secondsOfReached: (1...100).map { Int32($0 * 3600) }, users: 100)
        #expect(time.medianHours == 50.5)
        #expect(time.lowHours == 40 && time.highHours == 61)
    }

    /// The median counts users who never could as after the run, so a policy that reaches a
    /// few fast does not look better than one that reaches most a little later.
    @Test func fewUsersFastIsNotAShortMedian() {
        let fewFast = TimeToAlerts(secondsOfReached: Array(repeating: 3600, count: 30), users: 100)
        let mostLater = TimeToAlerts(secondsOfReached: Array(repeating: 48 * 3600, count: 80), users: 100)
        #expect(fewFast.medianHours == nil && fewFast.description == "after the run")
        #expect(mostLater.medianHours == 48)
        #expect(mostLater.highHours == 48 && mostLater.lowHours == 48)
        // Exactly half reached: the median needs the 50th and 51st values, and the 51st is after the run.
        let half = TimeToAlerts(secondsOfReached: Array(repeating: 3600, count: 50), users: 100)
        #expect(half.medianHours == nil && half.lowHours == 1 && half.highHours == nil)
        #expect(half.description == "after the run [1.0 h, after]")
    }
}
