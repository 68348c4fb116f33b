import Foundation
import PermitCore
import PermitTestSupport
import Testing

/// Experiments and decision records through the `permit` CLI: scenario pins, `decide --arm`,
/// `run --format json`, and the documented record schema.
@Suite struct ExperimentsCLITests {
    static let policy = """
        return {
          name = "abtest",
          experiments = { first_ask = { quiet = 50, soft = 50 } },
          decide = function(ctx)
            if ctx.event.name ~= "app_launch" then return nil end
            return { action = "none", reason = "arm " .. ctx.user.arms.first_ask }
          end,
        }
        """

    static func pack(scenario: String) -> Tree {
        let tree = Tree()
        tree.write("abtest/policy.lua", policy)
        tree.write("abtest/tests/pinned.yaml", scenario)
        return tree
    }

    @Test(arguments: ["quiet", "soft"])
    func aScenarioPinsEachArm(arm: String) async throws {
        let tree = Self.pack(
            scenario: """
                device: { os: "16.0" }
                user: { arms: { first_ask: \(arm) } }
                steps:
                  - { event: app_launch, expect: { action: none, reason: "arm \(arm)" } }
                """)
        let result = try await CLITests.permit(["test", tree.path()])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"))
    }

    static let firstAsk = Experiment(name: "first_ask", arms: [.init(name: "quiet", weight: 50), .init(name: "soft", weight: 50)])

    /// Unpinned, a scenario's arm is drawn for install id `scenario`, or for its
    /// `initial.ledger.install_id`; the ledger records it (`expect_ledger: { arms.first_ask: ... }`).
    @Test func unpinnedArmsAreDrawnForTheScenariosInstallID() async throws {
        let installs = (0..<50).map { "install-\($0)" }
        let quiet = try #require(installs.first { Self.firstAsk.arm(forInstall: $0) == "quiet" })
        let soft = try #require(installs.first { Self.firstAsk.arm(forInstall: $0) == "soft" })
        let drawn = Self.firstAsk.arm(forInstall: "scenario")
        for (ledger, arm) in [
            ("", drawn), ("initial: { ledger: { install_id: \(quiet) } }\n", "quiet"),
            ("initial: { ledger: { install_id: \(soft) } }\n", "soft"),
        ] {
            let tree = Self.pack(
                scenario: """
                    device: { os: "16.0" }
                    \(ledger)steps:
                      - { event: app_launch, expect: { reason: "arm \(arm)" }, expect_ledger: { arms.first_ask: \(arm) } }
                    """)
            let result = try await CLITests.permit(["test", tree.path()])
            #expect(result.status == 0, "\(ledger): \(result.stdout)\(result.stderr)")
        }
        let badPath = Self.pack(scenario: "device: { os: \"16.0\" }\nsteps:\n  - { event: app_launch, expect_ledger: { arms: quiet } }\n")
        let bad = try await CLITests.permit(["test", badPath.path()])
        #expect(bad.status == 2)
    }

    @Test func anUnknownExperimentOrArmIsAnInputErrorWithItsLine() async throws {
        let experiment = Self.pack(
            scenario: "device: { os: \"16.0\" }\nuser: { arms: { frist_ask: quiet } }\nsteps:\n  - { event: app_launch }\n")
        let badExperiment = try await CLITests.permit(["test", experiment.path()])
        #expect(badExperiment.status == 2)
        #expect(
            badExperiment.stdout.contains("pinned.yaml:2:") || badExperiment.stderr.contains("pinned.yaml:2:"),
            "\(badExperiment.stdout)\(badExperiment.stderr)")
        #expect((badExperiment.stdout + badExperiment.stderr).contains("did you mean \"first_ask\"?"))

        let arm = Self.pack(scenario: "device: { os: \"16.0\" }\nuser: { arms: { first_ask: quite } }\nsteps:\n  - { event: app_launch }\n")
        let badArm = try await CLITests.permit(["test", arm.path()])
        #expect(badArm.status == 2)
        #expect((badArm.stdout + badArm.stderr).contains("did you mean \"quiet\"?"))
    }

    @Test func decideTakesArmPins() async throws {
        let tree = Self.pack(scenario: "")
        for arm in ["quiet", "soft"] {
            let result = try await CLITests.permit([
                "decide", tree.path("abtest"), "--status", "not_determined", "--event", "app_launch",
                "--arm", "first_ask=\(arm)", "--format", "json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect((object?["decision"] as? [String: Any])?["reason"] as? String == "arm \(arm)")
            #expect((object?["arms"] as? [String: String]) == ["first_ask": arm])
        }
        let unpinned = try await CLITests.permit(["decide", tree.path("abtest"), "--status", "not_determined", "--event", "app_launch"])
        let expected = Experiment(name: "first_ask", arms: [.init(name: "quiet", weight: 50), .init(name: "soft", weight: 50)])
            .arm(forInstall: "decide")
        #expect(unpinned.stdout.contains("arm \(expected)"), "\(unpinned.stdout)")
        #expect(unpinned.stdout.contains("arms: first_ask=\(expected)\n"), "\(unpinned.stdout)")
        let bad = try await CLITests.permit([
            "decide", tree.path("abtest"), "--status", "not_determined", "--event", "app_launch", "--arm", "first_ask=quite",
        ])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--arm first_ask=quite: experiment \"first_ask\" has no arm \"quite\"; did you mean \"quiet\"?"))
        let malformed = try await CLITests.permit([
            "decide", tree.path("abtest"), "--status", "not_determined", "--event", "app_launch", "--arm", "first_ask",
        ])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("write experiment=arm"))
    }

    /// `permit run --format json` prints each step's decision record, with the documented keys
    /// and the pinned arm.
    @Test func runPrintsTheDecisionRecords() async throws {
        let tree = Self.pack(
            scenario: """
                device: { os: "16.0" }
                user: { arms: { first_ask: soft } }
                steps:
                  - { event: app_launch }
                  - { after: 1h }
                  - { event: feature_opened, feature: diary }
                """)
        let result = try await CLITests.permit(["run", tree.path("abtest"), tree.path("abtest/tests/pinned.yaml"), "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let scenarios = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let records = try #require(scenarios.first?["records"] as? [[String: Any]])
        #expect(records.count == 2)
        #expect(Set(records[0].keys) == Set(DecisionRecord.fieldNames))
        #expect((records[0]["arms"] as? [String: String]) == ["first_ask": "soft"])
        #expect((records[1]["event"] as? [String: String]) == ["name": "feature_opened", "feature": "diary"])
        #expect((records[0]["policy"] as? [String: Any])?["name"] as? String == "abtest")
        let text = try await CLITests.permit(["run", tree.path("abtest"), tree.path("abtest/tests/pinned.yaml")])
        #expect(text.stdout.contains("policy abtest, arms first_ask=soft)"), "\(text.stdout)")
    }

    @Test func checkListsExperimentsAndEveryMistakeWithItsLine() async throws {
        let tree = Self.pack(scenario: "")
        tree.write(
            "bad.lua",
            "return {\n  name = 'bad',\n  experiments = {\n    first_ask = { quiet = 0 },\n    copy = {},\n  },\n  decide = function(ctx) return nil end,\n}\n"
        )
        let result = try await CLITests.permit(["check", tree.path("abtest"), tree.path("bad.lua")])
        #expect(result.status == 2)
        #expect(result.stdout.contains("name abtest, experiment first_ask (quiet 50, soft 50)"), "\(result.stdout)")
        #expect(result.stdout.contains("bad.lua:4: policy.experiments.first_ask.quiet: a weight is a whole number"), "\(result.stdout)")
        #expect(result.stdout.contains("bad.lua:5: policy.experiments.copy: an experiment needs at least one arm"), "\(result.stdout)")
    }

    /// docs/reference/policy.md#decision-records lists exactly the keys the encoder writes, in order.
    @Test func theDocumentedRecordIsTheEncodersRecord() throws {
        #expect(try ReferenceTables().keys("record") == DecisionRecord.fieldNames)
    }
}
