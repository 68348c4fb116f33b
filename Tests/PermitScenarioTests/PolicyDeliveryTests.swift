import Foundation
import PermitInput
import Testing

@testable import PermitCore
@testable import PermitScenario

/// `policy_update` steps go through the `PolicyDelivery` the runner is given, so the scenario
/// player needs no bundle code: these tests give it a delivery written here.
@Suite struct PolicyDeliveryTests {
    /// Installs any file whose name starts with "good" as a policy that decides nothing with
    /// the file's name as reason; refuses the rest. It keeps the name in its storage, so the
    /// next process serves it again.
    final class FileNamePolicy: UpdatablePolicy {
        let builtIn: any Policy
        let saved: URL
        private let state: Locked<(installed: String?, log: [String])>

        init(builtIn: any Policy, storage: URL) {
            self.builtIn = builtIn
            saved = storage.appendingPathComponent("installed")
            let restored = (try? String(contentsOf: saved, encoding: .utf8))
            state = Locked((restored, restored.map { ["restored \($0)"] } ?? []))
        }

        var declaration: PolicyDeclaration {
            var declaration = builtIn.declaration
            declaration.name = state.current.installed ?? declaration.name
            return declaration
        }
        func answer(_ context: PolicyContext) -> PolicyAnswer {
            guard let installed = state.current.installed else { return builtIn.answer(context) }
            return PolicyAnswer(decision: .success(Decision(.none, reason: installed)), trace: "")
        }
        func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
            try builtIn.planReminders(context)
        }
        func validate(params: [String: PolicyValue]) throws(PolicyError) { try builtIn.validate(params: params) }
        func takeTrace() -> String { builtIn.takeTrace() }
        func eventHandled(errors: [PolicyError]) { builtIn.eventHandled(errors: errors) }
        func installUpdate(contentsOf url: URL) throws -> String {
            let file = url.deletingPathExtension().lastPathComponent
            guard file.hasPrefix("good") else {
                state.withLock { $0.log.append("refused \(file)") }
                throw InputError("\(file) is not good")
            }
            state.withLock {
                $0.installed = file
                $0.log.append("installed \(file)")
            }
            try FileManager.default.createDirectory(at: saved.deletingLastPathComponent(), withIntermediateDirectories: true)
            try file.write(to: saved, atomically: true, encoding: .utf8)
            return "update \(file)"
        }
        var updateLog: [String] { state.current.log }
    }

    struct FileNameDelivery: PolicyDelivery {
        func policies(
            trustedKeys: [URL], hostParams: [String: PolicyValue], clock: any PermitClock
        ) throws -> @Sendable (any Policy, URL) -> any UpdatablePolicy {
            if let key = trustedKeys.first { throw InputError("cannot use \(key.lastPathComponent)") }
            return { FileNamePolicy(builtIn: $0, storage: $1) }
        }
    }

    func scenario(_ steps: String, extra: String = "") throws -> (Scenario, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["good-v2.bundle", "bad-v3.bundle", "release.pub"] {
            try Data().write(to: directory.appendingPathComponent(name))
        }
        let text = "device: { os: \"17.0\" }\n\(extra)steps:\n\(steps)"
        return (try ScenarioParser.parse(text, file: "rollout.yaml", directory: directory), directory)
    }

    @Test func updatesInstallThroughTheGivenDelivery() async throws {
        let (scenario, directory) = try scenario(
            """
              - { policy_update: good-v2.bundle, expect_update: installed }
              - { event: app_launch, expect: { action: none, reason: good-v2 } }
              - { policy_update: bad-v3.bundle, expect_update: "not good" }
              - { reinstall: true }
              - { event: app_launch, expect: { action: none } }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ScenarioRunner(policy: polite, delivery: FileNameDelivery()).run(scenario)
        #expect(failures(result) == [])
        #expect(result.steps[0].notes == ["installed update good-v2 (policy good-v2)"])
        #expect(result.steps[2].notes == ["policy update refused: bad-v3 is not good"])
        // A reinstall starts a fresh updatable policy: the built-in one serves again.
        #expect(result.steps[4].outcome?.decision.reason == nil)
    }

    /// What the app installed is in its storage: the next process serves it again, until a
    /// reinstall empties the storage.
    @Test func anInstalledUpdateSurvivesARelaunch() async throws {
        let (scenario, directory) = try scenario(
            """
              - event: app_launch
              - { policy_update: good-v2.bundle, expect_update: installed }
              - terminate: true
              - { after: 1d, event: app_launch, expect: { action: none, reason: good-v2 } }
              - reinstall: true
              - { event: app_launch, expect: { action: none } }
            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ScenarioRunner(policy: polite, delivery: FileNameDelivery()).run(scenario)
        #expect(failures(result) == [])
        #expect(result.steps[3].notes.contains("policy source restored good-v2"))
        #expect(result.steps[5].outcome?.decision.reason == nil)
    }

    @Test func withoutADeliveryAPolicyUpdateIsAnInputErrorAtTheStep() async throws {
        let (scenario, directory) = try scenario("  - { event: app_launch }\n  - { policy_update: good-v2.bundle }\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        await #expect(throws: InputError.self) { try await ScenarioRunner(policy: polite).run(scenario) }
        do {
            _ = try await ScenarioRunner(policy: polite).run(scenario)
        } catch {
            #expect(error.description.hasPrefix("rollout.yaml:4:5: policy_update: this runner cannot install policy bundles"))
        }
    }

    @Test func aKeyTheDeliveryCannotUseIsAnInputErrorAtTrustedKeys() async throws {
        let (scenario, directory) = try scenario("  - { policy_update: good-v2.bundle }\n", extra: "trusted_keys: release.pub\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try await ScenarioRunner(policy: polite, delivery: FileNameDelivery()).run(scenario)
            Issue.record("expected an input error")
        } catch {
            #expect(error.description == "rollout.yaml:2:15: trusted_keys: cannot use release.pub")
        }
    }
}
