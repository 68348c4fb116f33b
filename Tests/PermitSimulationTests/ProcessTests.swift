import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// Each simulated user has their own policy state, and a cold launch (a new process of the app)
/// starts it over while a warm session keeps it, as a policy loaded once per process on a
/// device (docs/simulate.md, "Processes and the policy's own state").
@Suite("Simulated processes")
struct ProcessTests {
    static func policy(_ name: String, _ source: String) throws -> SimulationPolicy {
        try SimulationPolicy(source: source, chunkName: "\(name).lua")
    }

    /// Three blocks of users (the VM is kept per block), the last one short.
    static let users = SimulationOptions.blockSize * 2 + 17

    @Test func theColdLaunchShareIsAChanceWithADefault() throws {
        #expect(try fixedModel().coldLaunchShare == UserModel.defaultColdLaunchShare)
        #expect(try fixedModel("cold_launch_share: 25%").coldLaunchShare == 0.25)
        #expect(throws: InputError.self) { try fixedModel("cold_launch_share: 1.5") }
        do {
            _ = try fixedModel("cold_launch_share: often")
            Issue.record("a word was taken for a chance")
        } catch {
            let text = "\(error)"
            #expect(text.contains("test-model.yaml:9:") && text.contains("cold_launch_share"), "\(text)")
        }
    }

    @Test func aPolicyAskingOncePerProcessAsksEveryUserWhoLaunches() async throws {
        let soft = #"{ action = "soft_prompt", title = "t", message = "m", accept = "a", decline = "d" }"#
        // The two ways a policy remembers "asked in this process": a global, a top-level local.
        let global = try Self.policy(
            "once-global",
            """
            return { name = "once-global", decide = function(ctx)
              if ctx.event.name == "app_launch" and not asked_this_process then
                asked_this_process = true
                return \(soft)
              end
            end }
            """)
        let local = try Self.policy(
            "once-local",
            """
            local asked = false
            return { name = "once-local", decide = function(ctx)
              if ctx.event.name == "app_launch" and not asked then
                asked = true
                return \(soft)
              end
            end }
            """)
        // One session a day, one day: every user launches the app once.
        let result = await Simulation.run(
            policies: [global, local], model: try fixedModel(), options: SimulationOptions(users: Self.users, days: 1, seed: 4))
        for policy in result.policies {
            #expect(policy.coldLaunches == Self.users, "\(policy.name)")
            #expect(policy.answers.softPrompts == Self.users, "\(policy.name): every user who launches is asked")
            #expect(policy.errors.isEmpty, "\(policy.name): \(policy.firstError ?? "")")
        }
    }

    /// Counts the sessions of the current process in a global: a launch must find it fresh, a
    /// warm session must find the launch's count.
    static let sessionCounter = """
        return { name = "session-counter", decide = function(ctx)
          local name = ctx.event.name
          if name == "app_launch" then
            sessions = (sessions or 0) + 1
            if sessions ~= 1 then error("state kept across a cold launch: session " .. sessions) end
          elseif name == "app_foreground" then
            if not sessions then error("state lost in a warm session") end
            sessions = sessions + 1
          end
        end }
        """

    @Test func withNoColdLaunchesStatePersistsAfterTheFirstLaunch() async throws {
        let model = try fixedModel("cold_launch_share: 0", sessions: 3)
        #expect(model.coldLaunchShare == 0)
        let result = await Simulation.run(
            policies: [try Self.policy("session-counter", Self.sessionCounter)], model: model,
            options: SimulationOptions(users: Self.users, days: 5, seed: 8))
        let policy = result.policies[0]
        #expect(policy.errors.isEmpty, "\(policy.firstError ?? "")")
        #expect(policy.sessions == Self.users * 15)
        #expect(policy.coldLaunches == Self.users, "only each user's first session launches")
    }

    @Test func withOnlyColdLaunchesStateResetsEverySession() async throws {
        let model = try fixedModel("cold_launch_share: 1", sessions: 3)
        let result = await Simulation.run(
            policies: [try Self.policy("session-counter", Self.sessionCounter)], model: model,
            options: SimulationOptions(users: Self.users, days: 5, seed: 8))
        let policy = result.policies[0]
        #expect(policy.errors.isEmpty, "\(policy.firstError ?? "")")
        #expect(policy.sessions == Self.users * 15)
        #expect(policy.coldLaunches == Self.users * 15)
    }

    @Test func theColdLaunchShareIsTheModels() async throws {
        // 600 users × 10 sessions: 5,400 sessions after the first ones; the standard error of
        // the share is 0.0067 at 0.3, so 0.03 is 4.5 of them.
        let model = try fixedModel("cold_launch_share: 30%", sessions: 2)
        let result = await Simulation.run(
            policies: [try Self.policy("session-counter", Self.sessionCounter)], model: model,
            options: SimulationOptions(users: 600, days: 5, seed: 2))
        let policy = result.policies[0]
        #expect(policy.errors.isEmpty, "\(policy.firstError ?? "")")
        let share = Double(policy.coldLaunches - 600) / Double(policy.sessions - 600)
        #expect(abs(share - 0.3) < 0.03, "cold launch share \(share)")
    }

    @Test func noPolicyStateIsSharedBetweenUsers() async throws {
        // State kept for the whole install (no cold launch after the first), and still every
        // user's policy counts one user, and its tostring numbers start over.
        let counter = try Self.policy(
            "user-counter",
            """
            local named = {}
            return { name = "user-counter", decide = function(ctx)
              if ctx.event.name == "app_launch" and ctx.history.launches == 1 then
                users = (users or 0) + 1
                if users ~= 1 then error("users seen by one policy state: " .. users) end
                if tostring(named) ~= "table: #1" then error("object numbers went on: " .. tostring(named)) end
              end
            end }
            """)
        let model = try fixedModel("cold_launch_share: 0", sessions: 2)
        let result = await Simulation.run(
            policies: [counter], model: model, options: SimulationOptions(users: Self.users, days: 3, seed: 6))
        let policy = result.policies[0]
        #expect(policy.errors.isEmpty, "\(policy.firstError ?? "")")
        #expect(policy.coldLaunches == Self.users)
    }

    @Test func usersDrawDifferentRandomNumbersEvenAfterAPolicyReseeds() async throws {
        // Each user's first draw comes from their own process seed: a policy that reseeds with a
        // constant does not make the next user draw the same numbers.
        let policy = try Self.policy(
            "reseeding",
            """
            return { name = "reseeding", decide = function(ctx)
              if ctx.event.name == "app_launch" then
                local draw = math.random()
                math.randomseed(7)
                if draw < 0.5 then return { action = "request_permission", options = { "alert" } } end
              end
            end }
            """)
        let result = await Simulation.run(
            policies: [policy], model: try fixedModel(), options: SimulationOptions(users: 1_000, days: 1, seed: 12))
        // Half the users are asked (the standard error of the share is 0.016); with the seed kept
        // across users every user after the first would draw math.randomseed(7)'s first number.
        let asked = Double(result.policies[0].answers.dialogsCold) / 1_000
        #expect(abs(asked - 0.5) < 0.07, "asked share \(asked)")
    }

    @Test func aStatefulPolicyGivesTheSameResultWhateverTheWorkerCount() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        // Asks on the third feature open of a process, or by chance: state and math.random both.
        let stateful = try Self.policy(
            "stateful",
            """
            local opens = 0
            return { name = "stateful", decide = function(ctx)
              if ctx.event.name == "feature_opened" and ctx.status == "not_determined" then
                opens = opens + 1
                if opens == 3 or math.random() < 0.05 then
                  return { action = "request_permission", options = { "alert" } }
                end
              end
            end }
            """)
        let options = { (workers: Int) in SimulationOptions(users: Self.users, days: 6, seed: 21, workers: workers) }
        let one = await Simulation.run(policies: [stateful], model: model, options: options(1))
        let four = await Simulation.run(policies: [stateful], model: model, options: options(4))
        #expect(one.json() == four.json())
        #expect(one.policies[0].coldLaunches == four.policies[0].coldLaunches)
        #expect(one.policies[0].systemDialogsPerUser > 0)
        #expect(one.policies[0].errors.isEmpty, "\(one.policies[0].firstError ?? "")")
    }
}
