import Foundation
import PermitCore
import Testing

@testable import PermitSimulation

/// Quiet (provisional) delivery is reported apart from full authorization, and what quiet users
/// do with it (leave it quiet, turn it off, Keep › Deliver Immediately) follows the model.
@Suite("Reach")
struct ReachTests {
    /// Every user is granted provisional on the first launch, silently (iOS 12+), and never asked more.
    static let quietOnly = """
        if ctx.event.name == "app_launch" and ctx.status == "not_determined" then
          return { action = "request_permission", options = { "alert", "sound", "provisional" } }
        end
        """

    @Test func quietDeliveryIsNeverCountedAsFullAuthorization() async throws {
        let policy = try inline("quiet-only", Self.quietOnly)
        let keep = try fixedModel("provisional: { keep_quiet: 1, turn_off: 0, deliver_immediately: 0 }")
        let result = await Simulation.run(
            policies: [policy], model: keep, options: SimulationOptions(users: 300, days: 7, seed: 4))
        let quiet = result.policies[0]
        #expect(quiet.canReceiveAlertsByDay == Array(repeating: 0, count: 7))
        #expect(quiet.quietByDay == Array(repeating: 1, count: 7))
        #expect(quiet.usersReachedAlerts == 0 && quiet.timeToAlerts.medianHours == nil)
        // Nobody has anything to choose: no draw, no change.
        #expect(quiet.answers.quietLeftQuiet + quiet.answers.quietTurnedOff + quiet.answers.quietDeliveredImmediately == 0)
        let json = try #require(JSONSerialization.jsonObject(with: Data(result.json().utf8)) as? [String: Any])
        let first = try #require((json["policies"] as? [[String: Any]])?.first)
        let reach = try #require((first["reach"] as? [String: Any])?["day_7"] as? [String: Any])
        func share(_ state: String) -> Double? { (reach[state] as? [String: Any])?["share"] as? Double }
        #expect(share("full_alerts") == 0 && share("quiet") == 1)
        #expect((first["can_receive_alerts_by_day"] as? [Double]) == Array(repeating: 0, count: 7))
    }

    /// Keep › Deliver Immediately authorizes without alerts (docs/platform.md P-02): those users
    /// read `authorized` and stay quiet, never reaching alerts.
    @Test func quietUsersTurnOffOrKeepAsTheModelSays() async throws {
        let policy = try inline("quiet-only", Self.quietOnly)
        let model = try fixedModel(
            "provisional: { keep_quiet: 0.5, turn_off: 0.3, deliver_immediately: 0.2, decide_after_days: 2 }")
        let result = await Simulation.run(
            policies: [policy], model: model, options: SimulationOptions(users: 1_500, days: 5, seed: 8))
        let quiet = result.policies[0]
        // Granted on day 1, they choose at the end of day 3: quiet until then.
        for day in 1...2 {
            #expect(quiet.share(.quiet, day: day) == 1)
            #expect(quiet.share(.fullAlerts, day: day) == 0)
        }
        let answers = quiet.answers
        #expect(answers.quietLeftQuiet + answers.quietTurnedOff + answers.quietDeliveredImmediately == 1_500)
        #expect(answers.quietDeliveredImmediately > 0)
        #expect(quiet.count(.denied, day: 3) == answers.quietTurnedOff)
        // Kept or left quiet, they stay quiet: nobody reaches alerts.
        #expect(quiet.count(.quiet, day: 5) == answers.quietLeftQuiet + answers.quietDeliveredImmediately)
        #expect(quiet.count(.fullAlerts, day: 5) == 0)
        // 1,500 users: standard error 0.0118 at 0.3; 0.045 is about 4 of them.
        #expect(abs(quiet.share(.denied, day: 5) - 0.3) < 0.045)
        #expect(quiet.usersReachedAlerts == 0 && quiet.timeToAlerts.medianHours == nil)

        // The JSON names each choice as the text does: left quiet, turned off, kept (Deliver Immediately).
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.json().utf8)) as? [String: Any])
        let policies = try #require(json["policies"] as? [[String: Any]])
        let chosen = try #require((policies[0]["answers"] as? [String: Any])?["quiet_delivery"] as? [String: Int])
        #expect(
            chosen == [
                "left_quiet": answers.quietLeftQuiet, "turned_off": answers.quietTurnedOff,
                "delivered_immediately": answers.quietDeliveredImmediately,
            ])
        #expect(result.text().contains("\(answers.quietLeftQuiet) / \(answers.quietTurnedOff) / \(answers.quietDeliveredImmediately)"))
    }

    /// A model written when iOS offered "Deliver Prominently" is still read: the share becomes
    /// Keep › Deliver Immediately, and the run says so.
    @Test func oldDeliverProminentlyIsReadAsDeliverImmediately() async throws {
        let policy = try inline("quiet-only", Self.quietOnly)
        let old = try fixedModel(
            "provisional: { keep_quiet: 0, turn_off: 0, deliver_prominently: 1, decide_after_days: 2 }")
        #expect(old.quietDeliverImmediately == 1 && old.readsDeliverProminently)
        let result = await Simulation.run(
            policies: [policy], model: old, options: SimulationOptions(users: 100, days: 5, seed: 8))
        #expect(result.policies[0].answers.quietDeliveredImmediately == 100)
        #expect(result.policies[0].count(.fullAlerts, day: 5) == 0)
        #expect(result.warnings.contains { $0.message.contains("deliver_prominently is read as deliver_immediately") })
    }

    @Test func everyInstalledUserIsInExactlyOneState() async throws {
        let model = try UserModel.load(contentsOf: repositoryRoot.appendingPathComponent("examples/models/default.yaml"))
        let result = await Simulation.run(
            policies: [try pack("provisional-first"), try pack("polite")], model: model,
            options: SimulationOptions(users: 200, days: 10, seed: 6))
        for policy in result.policies {
            for day in 1...10 {
                let total = Reach.allCases.map { policy.count($0, day: day) }.reduce(0, +) + policy.count(nil, day: day)
                #expect(total == 200)
            }
        }
        // provisional-first's quiet users choose, with the default model's chances.
        let answers = result.policies[0].answers
        #expect(answers.quietTurnedOff > 0 && answers.quietDeliveredImmediately > 0 && answers.quietLeftQuiet > 0)
    }

    @Test func reachOfEachDeviceState() {
        #expect(Reach.of(.authorized, alert: .enabled) == .fullAlerts)
        #expect(Reach.of(.authorized, alert: .disabled) == .quiet)  // "Deliver Quietly" in Settings
        #expect(Reach.of(.provisional, alert: .enabled) == .quiet)
        #expect(Reach.of(.ephemeral, alert: .enabled) == .ephemeral)
        #expect(Reach.of(.denied, alert: .disabled) == .denied)
        #expect(Reach.of(.notDetermined, alert: .disabled) == .neverAsked)
    }
}

/// The model's `app` reaches every simulated device, as a scenario's `device` keys do.
@Suite struct ModelAppTests {
    @Test func anAppClipWithTheEphemeralKeyStartsEphemeralOnEveryDevice() async throws {
        let never = try inline("never-asks", "return nil")
        let clip = try fixedModel("app: { app_clip: true, app_clip_ephemeral: true }")
        let result = await Simulation.run(policies: [never], model: clip, options: SimulationOptions(users: 50, days: 2, seed: 3))
        #expect(result.policies[0].share(.ephemeral, day: 1) == 1)
        let plain = try fixedModel("app: { app_clip: true }")
        let without = await Simulation.run(policies: [never], model: plain, options: SimulationOptions(users: 50, days: 2, seed: 3))
        #expect(without.policies[0].share(.ephemeral, day: 1) == 0, "without the Info.plist key a clip starts not determined")
    }

    @Test func theAppKeyIsCheckedLikeAScenariosDevice() throws {
        let model = try fixedModel("app: { entitlements: [time_sensitive, critical_alerts] }")
        #expect(model.app.entitlements == [.timeSensitive, .criticalAlerts])
        let notAClip = try #require(modelError(validModel + "\napp: { app_clip_ephemeral: true }"))
        #expect(notAClip.description.contains("app_clip_ephemeral is for App Clips"), "\(notAClip)")
        let unknown = try #require(modelError(validModel + "\napp: { entitlements: [push] }"))
        #expect(unknown.description.contains("time_sensitive"), "\(unknown)")
    }
}
