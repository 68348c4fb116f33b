import Foundation
import PermitCore
import PermitInput
import PermitLua
import PermitScenario
import Testing

@testable import PermitDelivery

/// `policy_update: FILE` in scenario files: a rollout tested like any other behaviour.
@Suite struct ScenarioUpdateTests {
    func run(_ yaml: String, in directory: URL) async throws -> ScenarioResult {
        let scenario = try ScenarioParser.parse(yaml, file: "rollout.yaml", directory: directory)
        return try await ScenarioRunner(policy: builtInPolicy(), delivery: BundleDelivery()).run(scenario)
    }

    @Test func updateInstallsMidScenario() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try bundle(2, taggedPolicy("v2")).write(to: directory.appendingPathComponent("v2.permitbundle"))
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: authorized }
            steps:
              - { event: app_launch, expect: { action: none, reason: builtin } }
              - { policy_update: v2.permitbundle, expect_update: installed }
              - { event: app_foreground, expect: { action: none, reason: v2 } }
            """, in: directory)
        #expect(result.passed, "\(result.steps.flatMap(\.failures))")
        #expect(result.steps[1].notes.contains { $0.contains("installed bundle demo version 2") })
    }

    /// A relaunched app restores the bundle it installed (verified again) from its delivery
    /// store; a reinstall empties the store and the built-in policy serves.
    @Test func anInstalledBundleSurvivesARelaunch() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try bundle(2, taggedPolicy("v2")).write(to: directory.appendingPathComponent("v2.permitbundle"))
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: authorized }
            steps:
              - { event: app_launch, expect: { action: none, reason: builtin } }
              - { policy_update: v2.permitbundle, expect_update: installed }
              - terminate: true
              - { after: 1d, event: app_launch, expect: { action: none, reason: v2 } }
              - { event: app_background }
              - { after: 1d, event: app_launch, expect: { action: none, reason: v2 } }
              - reinstall: { system_remembers: true }
              - { event: app_launch, expect: { action: none, reason: builtin } }
            """, in: directory)
        #expect(result.passed, "\(result.steps.flatMap(\.failures))")
        #expect(result.steps[3].notes.contains { $0.contains("restored") && $0.contains("version 2") })
    }

    @Test func refusedUpdatesAreExpectedOrFail() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = BundleSigningKey()
        try Data(key.publicKey.text.utf8).write(to: directory.appendingPathComponent("release.pub"))
        try bundle(2, taggedPolicy("v2")).write(to: directory.appendingPathComponent("unsigned.permitbundle"))
        try bundle(3, taggedPolicy("v3"), key: key).write(to: directory.appendingPathComponent("v3.permitbundle"))
        let result = try await run(
            """
            device: { os: "17.0" }
            trusted_keys: release.pub
            steps:
              - { policy_update: unsigned.permitbundle, expect_update: "unsigned" }
              - { event: app_launch, expect: { action: none, reason: builtin } }
              - { policy_update: v3.permitbundle }
              - { policy_update: v3.permitbundle, expect_update: "not newer" }
              - { event: app_foreground, expect: { action: none, reason: v3 } }
            """, in: directory)
        #expect(result.passed, "\(result.steps.flatMap(\.failures))")

        // A refusal nobody expected fails the step.
        let failing = try await run(
            """
            device: { os: "17.0" }
            trusted_keys: [release.pub]
            steps:
              - policy_update: unsigned.permitbundle
            """, in: directory)
        #expect(!failing.passed)
        #expect(failing.steps[0].failures.first?.contains("policy update refused: unsigned") == true)
    }

    @Test func breakerRevertShowsInTheScenario() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try bundle(2, failingPolicy).write(to: directory.appendingPathComponent("broken.permitbundle"))
        var steps = ["  - { policy_update: broken.permitbundle }"]
        for _ in 0..<10 { steps.append("  - { event: app_foreground, expect_error: boom }") }
        steps.append("  - { event: app_foreground, expect: { action: none, reason: builtin } }")
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
            \(steps.joined(separator: "\n"))
            """, in: directory)
        #expect(result.passed, "\(result.steps.flatMap(\.failures))")
        #expect(result.steps[10].notes.contains { $0.contains("reverted") && $0.contains("revoked") })
    }

    @Test func parserNamesMistakes() throws {
        #expect(throws: InputError.self) {
            try ScenarioParser.parse(
                "device: { os: \"17.0\" }\nsteps:\n  - policy_update: missing.permitbundle\n", file: "x.yaml",
                directory: temporaryDirectory())
        }
        #expect(throws: InputError.self) {
            try ScenarioParser.parse(
                "device: { os: \"17.0\" }\nsteps:\n  - { event: app_launch, expect_update: installed }\n", file: "x.yaml")
        }
    }
}
