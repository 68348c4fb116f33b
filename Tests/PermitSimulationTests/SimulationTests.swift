import Foundation
import PermitCore
import PermitInput
import PermitTestSupport
import Testing

@testable import PermitSimulation

let repositoryRoot = Repository.root

func pack(_ name: String) throws -> SimulationPolicy {
    try SimulationPolicy.load(
        contentsOf: repositoryRoot.appendingPathComponent("policies/\(name)/policy.lua"), displayName: "\(name)/policy.lua")
}

func inline(_ name: String, _ decide: String) throws -> SimulationPolicy {
    try SimulationPolicy(source: "return { name = [==[\(name)]==], decide = function(ctx)\n\(decide)\nend }", chunkName: "\(name).lua")
}

/// A model with everything fixed except the chance under test.
func fixedModel(_ extra: String = "", sessions: Int = 1, opens: Int = 1, maxPrompts: Int = 3) throws -> UserModel {
    try UserModel.parse(
        """
        os_versions: { "17.5": 1 }
        sessions_per_day: \(sessions)
        feature_opens_per_session: \(opens)
        features: { reminders: 1 }
        soft_prompt: { accept: 0.3, dismiss: 0.1 }
        system_dialog: { allow_cold: 0.35, allow_after_soft_accept: 0.85 }
        settings_prompt: { open: 0.25, enable: 0.6 }
        max_prompts_per_day: \(maxPrompts)
        \(extra)
        """, file: "test-model.yaml")
}

@Suite("Simulation")
struct SimulationTests {
    @Test func sameSeedSameJSONWhateverTheWorkerCount() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        // A policy drawing from math.random too: the VM's seed must not depend on the workers either.
        let random = try inline(
            "coin",
            """
            if ctx.event.name == "feature_opened" and ctx.status == "not_determined" and math.random() < 0.5 then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let policies = [try pack("polite"), random]
        let users = SimulationOptions.blockSize * 2 + 17  // three blocks, the last one short
        let one = await Simulation.run(
            policies: policies, model: model, options: SimulationOptions(users: users, days: 4, seed: 99, workers: 1))
        let four = await Simulation.run(
            policies: policies, model: model, options: SimulationOptions(users: users, days: 4, seed: 99, workers: 4))
        #expect(one.json() == four.json())
        // The per-user states that pair the policies, and the comparisons built on them.
        #expect(one.policies.map(\.outcomes) == four.policies.map(\.outcomes))
        #expect(one.policies[0].outcomes.count == users * one.reportedDays.count)
        #expect(one.json(allPairs: true) == four.json(allPairs: true))
        #expect(one.json(allPairs: true).contains("\"pairs\""))
        #expect(one.policies[0].softPromptsPerUser > 0)
        #expect(one.policies[1].systemDialogsPerUser > 0)
        let other = await Simulation.run(
            policies: policies, model: model, options: SimulationOptions(users: users, days: 4, seed: 100, workers: 2))
        #expect(other.json() != one.json())
    }

    @Test func softPromptAcceptShareMatchesTheModel() async throws {
        // Soft prompt on every feature open; an accept asks nothing more, so the status stays
        // not determined and every open prompts again: 20 answers per user. 10,000 answers:
        // the standard error of a share is 0.0046 at 0.3 and 0.003 at 0.1, so 0.02 and 0.015
        // are 4 to 5 of them (and a swapped or ignored chance is far outside).
        let policy = try inline(
            "soft-only",
            """
            if ctx.event.name == "feature_opened" and ctx.status == "not_determined" then
              return { action = "soft_prompt", title = "t", message = "m", accept = "a", decline = "d" }
            end
            """)
        let model = try fixedModel(opens: 20, maxPrompts: 100)
        let result = await Simulation.run(
            policies: [policy], model: model, options: SimulationOptions(users: 500, days: 1, seed: 3))
        let answers = result.policies[0].answers
        #expect(answers.softPrompts == 10_000)
        let accepted = Double(answers.softAccepted) / Double(answers.softPrompts)
        let dismissed = Double(answers.softDismissed) / Double(answers.softPrompts)
        #expect(abs(accepted - 0.3) < 0.02, "accept share \(accepted)")
        #expect(abs(dismissed - 0.1) < 0.015, "dismiss share \(dismissed)")
        #expect(answers.softAccepted + answers.softDeclined + answers.softDismissed == answers.softPrompts)
        #expect(result.policies[0].canReceiveAlertsByDay == [0])
        #expect(result.policies[0].share(.neverAsked, day: 1) == 1)
        #expect(result.policies[0].errors.isEmpty && result.policies[0].warnings.isEmpty)
    }

    @Test func systemDialogAllowShareMatchesTheModel() async throws {
        let policy = try inline(
            "ask-cold",
            """
            if ctx.event.name == "feature_opened" then
              return { action = "request_permission", options = { "alert", "sound" } }
            end
            """)
        // 1,500 users: the standard error of the share is 0.0123, so 0.05 is 4 of them (the
        // soft-accept chance 0.85 or the refusal share 0.65 are far outside).
        let result = await Simulation.run(
            policies: [policy], model: try fixedModel(), options: SimulationOptions(users: 1_500, days: 1, seed: 5))
        let policyResult = result.policies[0]
        #expect(policyResult.answers.dialogsCold == 1_500)
        let allowed = Double(policyResult.answers.dialogsColdAllowed) / 1_500
        #expect(abs(allowed - 0.35) < 0.05, "allow share \(allowed)")
        // Alerts reach exactly the users who allowed; the others denied.
        #expect(policyResult.canReceiveAlertsByDay == [allowed])
        #expect(abs(policyResult.deniedAtEnd - (1 - allowed)) < 1e-9)
        #expect(policyResult.usersReachedAlerts == policyResult.answers.dialogsColdAllowed)
        #expect(policyResult.quietByDay == [0])
    }

    @Test func policyThatNeverAsksYieldsNoPromptsAndNoOptIn() async throws {
        let never = try SimulationPolicy(
            source: "return { name = \"never\", decide = function(ctx) return nil end }", chunkName: "never.lua")
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let result = await Simulation.run(
            policies: [never], model: model, options: SimulationOptions(users: 100, days: 10, seed: 1))
        let policy = result.policies[0]
        #expect(policy.softPromptsPerUser == 0)
        #expect(policy.systemDialogsPerUser == 0)
        #expect(policy.settingsPromptsPerUser == 0)
        #expect(policy.canReceiveAlertsByDay.allSatisfy { $0 == 0 })
        #expect(policy.quietByDay.allSatisfy { $0 == 0 })
        #expect(policy.deniedAtEnd == 0)
        #expect(policy.share(.neverAsked, day: 10) == 1)
        #expect(policy.timeToAlerts.medianHours == nil && policy.timeToAlerts.reached == 0)
        #expect(policy.uninstalls == 0)  // uninstalls come only from prompts in this model
        #expect(policy.events > 100 * 10)
        #expect(!result.json().contains("median_hours"))
    }

    @Test func policyErrorsAndWarningsAreCountedByName() async throws {
        let policy = try inline(
            "broken",
            """
            if ctx.event.name == "app_launch" then error("boom") end
            if ctx.event.name == "feature_opened" then
              return { action = "settings_prompt", title = "t", message = "m", open = "o", cancel = "c" }
            end
            """)
        // Every session a cold launch (one a day): one launch per user per day.
        let result = await Simulation.run(
            policies: [policy], model: try fixedModel("cold_launch_share: 1"), options: SimulationOptions(users: 50, days: 2, seed: 1))
        let policyResult = result.policies[0]
        #expect(policyResult.errors["runtime"] == 100)
        #expect(policyResult.warnings["settings-prompt-pointless"] == 100)
        #expect(policyResult.firstError?.contains("boom") == true)
        #expect(result.text().contains("settings-prompt-pointless"))
    }

    @Test func annoyanceMakesUsersLeave() async throws {
        let nag = try inline(
            "nag",
            """
            if ctx.event.name == "feature_opened" and ctx.status == "not_determined" then
              return { action = "soft_prompt", title = "t", message = "m", accept = "a", decline = "d" }
            end
            """)
        let calm = try fixedModel(opens: 3)
        let annoyed = try fixedModel("annoyance: { uninstall_per_prompt: 0.05 }", opens: 3)
        // About half the users leave (15 prompts at 5% each); 200 users put 0.2 over 7 standard errors away.
        let options = SimulationOptions(users: 200, days: 5, seed: 1)
        let quiet = await Simulation.run(policies: [nag], model: calm, options: options).policies[0]
        let loud = await Simulation.run(policies: [nag], model: annoyed, options: options).policies[0]
        #expect(quiet.uninstalls == 0)
        #expect(loud.uninstalls > 40)
        #expect(loud.uninstalledAtEnd > 0.2)
    }

    @Test func textReportPutsPoliciesSideBySide() async throws {
        let model = try fixedModel()
        let result = await Simulation.run(
            policies: [try pack("polite"), try pack("provisional-first")], model: model,
            options: SimulationOptions(users: 100, days: 7, seed: 1))
        let text = result.text()
        let header = try #require(text.split(separator: "\n").first { $0.contains("polite") })
        #expect(header.contains("provisional-first"))
        for row in [
            "can receive alerts, day 1", "can receive alerts, day 7", "quiet (provisional), day 1",
            "quiet (provisional), day 7", "ephemeral, day 7", "denied, day 1", "denied, day 7",
            "never asked, day 1", "never asked, day 7", "soft prompts / user", "system dialogs / user",
            "settings prompts / user", "median time to alerts", "quiet users: left quiet / off / kept (deliver immediately)",
            "uninstalls", "policy errors", "guardrail warnings",
        ] {
            #expect(text.contains(row), "missing row \(row)")
        }
        #expect(result.reportedDays == [1, 7])
    }
}

/// A policy to simulate is read and checked once, when it is made; the run reuses its name.
@Suite struct SimulationPolicyTests {
    @Test func aBrokenSourceIsRefusedWhenMadeNotMidRun() {
        #expect(throws: PolicyError.self) { try SimulationPolicy(source: "return {", chunkName: "broken.lua") }
        #expect(throws: PolicyError.self) { try SimulationPolicy(source: "return { name = 'x' }", chunkName: "nodecide.lua") }
    }

    @Test func theNameIsThePolicysOwn() throws {
        let policy = try SimulationPolicy(
            source: "return { name = 'quiet', decide = function(ctx) return nil end }", chunkName: "path/to/quiet.lua")
        #expect(policy.name == "quiet" && policy.chunkName == "path/to/quiet.lua")
    }
}
