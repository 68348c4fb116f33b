import Foundation
import PermitCore
import PermitLua
import Testing

@testable import PermitDelivery

/// Experiments across bundle versions, through the source an app serves from: the records name
/// the serving bundle's version, and the documented rule for new versions holds.
@Suite struct ArmsAcrossBundlesTests {
    let key = BundleSigningKey()

    func policy(_ tag: String, arms: String) -> String {
        """
        return {
          name = "\(tag)",
          experiments = { first_ask = { \(arms) } },
          decide = function(ctx) return { action = "none", reason = ctx.user.arms.first_ask } end,
        }
        """
    }

    @Test func recordsNameTheBundleVersionAndAssignedArmsSurviveNewWeights() async throws {
        let source = try source(key: key)
        let engine = try engine(source)
        let builtIn = await engine.handle(.appLaunch)
        #expect(builtIn.record.policyVersion == nil)
        #expect(builtIn.arms.isEmpty, "the built-in policy declares no experiments")

        try source.install(bundle(1, policy("v1", arms: "quiet = 50, soft = 50"), key: key))
        let first = await engine.handle(.appForeground)
        #expect(first.record.policyVersion == 1)
        #expect(first.record.policyName == "v1")
        let arm = try #require(first.arms["first_ask"])
        #expect(first.decision.reason == arm)

        // Version 2 gives all new installs to the other arm: this install keeps its own.
        let other = arm == "quiet" ? "soft" : "quiet"
        try source.install(bundle(2, policy("v2", arms: "\(arm) = 1, \(other) = 1000000"), key: key))
        let second = await engine.handle(.appForeground)
        #expect(second.record.policyVersion == 2)
        #expect(second.arms == ["first_ask": arm])

        // Version 3 removes the install's arm: it is assigned again, to one that exists.
        try source.install(bundle(3, policy("v3", arms: "\(other) = 1, loud = 1"), key: key))
        let third = await engine.handle(.appForeground)
        #expect(third.arms["first_ask"].map { [other, "loud"].contains($0) } == true)
        #expect(third.decision.reason == third.arms["first_ask"])
    }
}
