import Foundation
import PermitSimulator
import PermitTestSupport
import Testing

@testable import PermitCore

private func experiment(_ name: String, _ arms: [String: Int]) -> Experiment {
    Experiment(name: name, arms: arms.map { Experiment.Arm(name: $0.key, weight: $0.value) })
}

/// A policy that declares `experiments` and decides nothing: what it saw is in the outcome.
private func policy(_ experiments: [Experiment]) -> ClosurePolicy {
    ClosurePolicy(name: "arms", experiments: experiments) { ctx in
        Decision(.none, reason: ctx.arms.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
    }
}

/// Assignment of installs to experiment arms: the documented hash, the split, independence,
/// and the rule for new policy versions.
@Suite struct ExperimentTests {
    /// The example docs/reference/policy.md#experiments gives, so a backend can check its own code.
    @Test func theDocumentedHashExample() throws {
        #expect(ArmAssignment.position(installID: "abc", experiment: "first_ask") == 0x6fca_910a_217d_d513)
        #expect(experiment("first_ask", ["quiet": 50, "soft": 50]).arm(forInstall: "abc") == "soft")
        let reference = try String(
            contentsOf: Repository.root.appendingPathComponent("docs/reference/policy.md"), encoding: .utf8)
        #expect(reference.contains("gives `p = 0x6fca910a217dd513`,\n`p mod 100 = 63`, so arm `soft`"))
    }

    @Test func armsSplitInstallsCloseToTheirWeights() {
        let split = experiment("first_ask", ["quiet": 70, "soft": 20, "loud": 10])
        var counts: [String: Int] = [:]
        for index in 0..<20_000 { counts[split.arm(forInstall: "install-\(index)"), default: 0] += 1 }
        // 20,000 draws: the standard error of a share is at most 0.35 points; 1.5 points is > 4 of them.
        #expect(abs(Double(counts["quiet"]!) / 20_000 - 0.70) < 0.015)
        #expect(abs(Double(counts["soft"]!) / 20_000 - 0.20) < 0.015)
        #expect(abs(Double(counts["loud"]!) / 20_000 - 0.10) < 0.015)
    }

    @Test func experimentsAreIndependent() {
        let first = experiment("first_ask", ["quiet": 50, "soft": 50])
        let second = experiment("copy", ["a": 50, "b": 50])
        var both = 0
        for index in 0..<20_000 where first.arm(forInstall: "i\(index)") == "quiet" && second.arm(forInstall: "i\(index)") == "a" {
            both += 1
        }
        #expect(abs(Double(both) / 20_000 - 0.25) < 0.015, "\(both)")
    }

    @Test func theRuleForNewPolicyVersions() {
        let v1 = [experiment("first_ask", ["quiet": 50, "soft": 50])]
        // Find installs in each arm under v1.
        let quietInstall = (0..<100).map { "q\($0)" }.first { v1[0].arm(forInstall: $0) == "quiet" }!
        let softInstall = (0..<100).map { "s\($0)" }.first { v1[0].arm(forInstall: $0) == "soft" }!
        let assignedQuiet = ArmAssignment.reconcile([:], experiments: v1, installID: quietInstall)
        #expect(assignedQuiet == ["first_ask": "quiet"])

        // New weights that would draw this install into "soft": it keeps "quiet".
        let reweighted = [experiment("first_ask", ["quiet": 1, "soft": 999_999])]
        #expect(reweighted[0].arm(forInstall: quietInstall) == "soft")
        #expect(ArmAssignment.reconcile(assignedQuiet, experiments: reweighted, installID: quietInstall) == ["first_ask": "quiet"])

        // The arm removed: reassigned under the new arms.
        let removed = [experiment("first_ask", ["soft": 50, "loud": 50])]
        let reassigned = ArmAssignment.reconcile(assignedQuiet, experiments: removed, installID: quietInstall)
        #expect(reassigned["first_ask"] == removed[0].arm(forInstall: quietInstall))

        // A new experiment is assigned, the old one kept; a dropped one disappears.
        let grown = v1 + [experiment("copy", ["a": 1, "b": 1])]
        let softAssigned = ArmAssignment.reconcile([:], experiments: v1, installID: softInstall)
        let withCopy = ArmAssignment.reconcile(softAssigned, experiments: grown, installID: softInstall)
        #expect(withCopy["first_ask"] == "soft")
        #expect(withCopy["copy"] == grown[1].arm(forInstall: softInstall))
        #expect(ArmAssignment.reconcile(withCopy, experiments: [grown[1]], installID: softInstall).keys.sorted() == ["copy"])

        // A pin wins over a kept arm; a pin of an arm the experiment lacks is ignored.
        #expect(
            ArmAssignment.reconcile(assignedQuiet, experiments: v1, installID: quietInstall, pins: ["first_ask": "soft"])
                == ["first_ask": "soft"])
        #expect(
            ArmAssignment.reconcile(assignedQuiet, experiments: v1, installID: quietInstall, pins: ["first_ask": "nope"])
                == ["first_ask": "quiet"])
    }

    @Test func pinProblemsSuggestTheNearestName() {
        let declared = [experiment("first_ask", ["quiet": 50, "soft": 50])]
        #expect(ArmAssignment.problem(withPin: "first_ask", arm: "quiet", in: declared) == nil)
        #expect(ArmAssignment.problem(withPin: "frist_ask", arm: "quiet", in: declared)?.contains("did you mean \"first_ask\"?") == true)
        #expect(ArmAssignment.problem(withPin: "first_ask", arm: "quite", in: declared)?.contains("did you mean \"quiet\"?") == true)
        #expect(ArmAssignment.problem(withPin: "x", arm: "y", in: [])?.contains("declares no experiments") == true)
    }

    /// The engine draws an install id once, keeps it and the arms in the ledger, and a second
    /// launch on the same store sees the same arms; the policy reads them, the outcome carries them.
    @Test func armsAreStableAcrossLaunchesAndCarriedInOutcomes() async throws {
        let experiments = [experiment("first_ask", ["quiet": 50, "soft": 50]), experiment("copy", ["a": 1, "b": 1])]
        let store = InMemoryLedgerStore()
        let clock = ManualClock(start)
        let device = try SimulatedDevice(platform: platform("17.0"), clock: clock)
        let first = PermissionEngine(
            policy: policy(experiments), client: device, platform: platform("17.0"), store: store, clock: clock,
            configuration: EngineConfiguration(foregroundRechecks: []))
        let outcome = await first.handle(.appLaunch)
        let ledger = await first.history
        let installID = try #require(ledger.installID)
        #expect(ledger.arms.keys.sorted() == ["copy", "first_ask"])
        #expect(outcome.arms == ledger.arms)
        #expect(outcome.decision.reason == "copy=\(ledger.arms["copy"]!),first_ask=\(ledger.arms["first_ask"]!)")
        #expect(ledger.arms["first_ask"] == experiments[0].arm(forInstall: installID))

        let second = PermissionEngine(
            policy: policy(experiments), client: device, platform: platform("17.0"), store: store, clock: clock,
            configuration: EngineConfiguration(foregroundRechecks: []))
        let again = await second.handle(.appLaunch)
        #expect(again.arms == ledger.arms)
        #expect(await second.history.installID == installID)
    }

    /// A new policy version with other weights keeps the install's arm; one without the arm
    /// reassigns it; the host's install id decides the draw.
    @Test func aNewPolicyVersionKeepsAssignedInstalls() async throws {
        let v1 = [experiment("first_ask", ["quiet": 50, "soft": 50])]
        let install = (0..<100).map { "host-\($0)" }.first { v1[0].arm(forInstall: $0) == "quiet" }!
        let store = InMemoryLedgerStore()
        let clock = ManualClock(start)
        let device = try SimulatedDevice(platform: platform("17.0"), clock: clock)
        func launch(_ experiments: [Experiment]) async -> Outcome {
            let engine = PermissionEngine(
                policy: policy(experiments), client: device, platform: platform("17.0"), store: store, clock: clock,
                configuration: EngineConfiguration(foregroundRechecks: [], installID: install))
            return await engine.handle(.appLaunch)
        }
        #expect(await launch(v1).arms == ["first_ask": "quiet"])
        #expect(await launch([experiment("first_ask", ["quiet": 1, "soft": 999_999])]).arms == ["first_ask": "quiet"])
        let without = [experiment("first_ask", ["soft": 1, "loud": 1])]
        #expect(await launch(without).arms == ["first_ask": without[0].arm(forInstall: install)])
        #expect(await launch([]).arms == [:])
    }

    @Test func aPolicyWithoutExperimentsLeavesNoInstallID() async {
        let world = World(policy: policy([]))
        _ = await world.engine.handle(.appLaunch)
        #expect(await world.engine.history.installID == nil)
        #expect(await world.engine.history.arms.isEmpty)
    }
}
