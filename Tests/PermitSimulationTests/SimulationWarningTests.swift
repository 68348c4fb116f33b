import Foundation
import PermitCore
import Testing

@testable import PermitSimulation

@Suite("Simulation warnings")
struct SimulationWarningTests {
    @Test func aFeatureTheModelNeverOpensIsNamed() async throws {
        // Keyed to "camera", which fixedModel never opens (it opens only "reminders").
        let policy = try inline(
            "camera-only",
            """
            if ctx.event.feature == "camera" and ctx.status == "not_determined" then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let result = await Simulation.run(
            policies: [policy], model: try fixedModel(), options: SimulationOptions(users: 50, days: 2, seed: 1))
        let messages = result.warnings.map(\.description)
        #expect(messages.contains { $0.hasPrefix("camera-only: names feature \"camera\" that the model never opens") })
        #expect(messages.contains { $0.hasPrefix("camera-only: prompted nobody") })
        #expect(result.text().contains("warning: camera-only: names feature \"camera\""))
        #expect(result.json().contains("names feature \\\"camera\\\""))
    }

    @Test func anEventTheSimulationNeverSendsIsNamed() async throws {
        let policy = try inline(
            "on-purchase",
            """
            local event = ctx.event.name
            if event == "purchase_completed" then
              return { action = "request_permission", options = { "alert" } }
            end
            """)
        let result = await Simulation.run(
            policies: [policy], model: try fixedModel(), options: SimulationOptions(users: 20, days: 1, seed: 1))
        #expect(
            result.warnings.map(\.description).contains {
                $0.hasPrefix("on-purchase: names event \"purchase_completed\" that the simulation never sends")
            })
    }

    @Test func aPackWhoseFeaturesTheModelOpensGetsNoWarning() async throws {
        // polite's `features` param is { "reminders" }, which fixedModel opens; it prompts.
        // The model gives annoyance, so no section it leaves out is one the run met.
        let result = await Simulation.run(
            policies: [try pack("polite")], model: try fixedModel("annoyance: { deny_increase_per_prompt: 0.03 }"),
            options: SimulationOptions(users: 100, days: 3, seed: 1))
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        // The same pack in a model that opens only "messages": the param names "reminders".
        let messagesOnly = try fixedModel().with(features: ["messages"])
        let blind = await Simulation.run(
            policies: [try pack("polite")], model: messagesOnly, options: SimulationOptions(users: 100, days: 3, seed: 1))
        #expect(blind.warnings.map(\.description).contains { $0.hasPrefix("polite: names feature \"reminders\"") })
        #expect(blind.warnings.map(\.description).contains { $0.hasPrefix("polite: prompted nobody") })
    }
}

extension UserModel {
    /// The same model opening only these features, in equal shares.
    func with(features names: [String]) -> UserModel {
        var copy = self
        copy.features = Weighted(names.map { (value: $0, share: 1 / Double(names.count)) })
        return copy
    }
}
