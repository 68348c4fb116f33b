import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// Inline rows in `permit simulate`: seen, not prompts; a user acts on one with the model's
/// `inline.act` chance, and seeing one wears nobody out.
@Suite struct InlineRowSimulationTests {
    /// While the dialog can come: an inline "Turn on" row at every feature open, the dialog
    /// after acting on it.
    static func rowPolicy() throws -> SimulationPolicy {
        try inline(
            "row",
            """
            if ctx.event.name == "feature_opened" and ctx.status == "not_determined" then
              return { action = "soft_prompt", presentation = "inline", title = "Off", message = "Turn on?", accept = "Turn on" }
            end
            if ctx.event.name == "soft_prompt_answered" then return { action = "request_permission" } end
            """)
    }

    @Test func theModelKeyDefaultsToAnAssumptionAndIsChecked() throws {
        #expect(try fixedModel().inlineAct == UserModel.defaultInlineAct)
        #expect(try fixedModel("inline: { act: 0.4 }").inlineAct == 0.4)
        #expect(throws: InputError.self) { try fixedModel("inline: { act: 1.5 }") }
        #expect(throws: InputError.self) { try fixedModel("inline: { tap: 0.5 }") }
    }

    @Test func rowsAreSeenNotAnsweredAndAnnoyNobody() async throws {
        // Every prompt would make a user delete the app at once; rows must not.
        let model = try fixedModel("inline: { act: 0 }\nannoyance: { uninstall_per_prompt: 1 }", sessions: 2, opens: 2)
        let result = await Simulation.run(
            policies: [try Self.rowPolicy()], model: model, options: SimulationOptions(users: 40, days: 3, seed: 7, workers: 1))
        let policy = result.policies[0]
        #expect(policy.answers.inlineShown == 40 * 3 * 2 * 2)
        #expect(policy.answers.inlineActed == 0)
        #expect(policy.answers.softPrompts == 0 && policy.systemDialogsPerUser == 0)
        #expect(policy.uninstalls == 0)
    }

    @Test func usersActOnRowsWithTheModelsChance() async throws {
        let model = try fixedModel("inline: { act: 1 }")
        let result = await Simulation.run(
            policies: [try Self.rowPolicy()], model: model, options: SimulationOptions(users: 30, days: 1, seed: 3, workers: 1))
        let policy = result.policies[0]
        #expect(policy.answers.inlineShown == 30 && policy.answers.inlineActed == 30)
        #expect(policy.answers.dialogsAfterAccept == 30)
        #expect(policy.answers.softPrompts == 0)
    }

    /// A decision's `row` is seen once the modal it came with is answered: an information page
    /// with a "Turn on" row beneath it, the row acted on after the page's OK, the dialog after.
    @Test func aRowBeneathAPageIsSeenAfterThePage() async throws {
        let policy = try inline(
            "page-and-row",
            """
            if ctx.event.name == "feature_opened" and ctx.status == "not_determined" and not ctx.state.shown then
              return { action = "inform", title = "News", message = "Alerts are here", button = "OK", remember = { shown = true },
                       row = { action = "soft_prompt", title = "Off", message = "Turn on?", accept = "Turn on" } }
            end
            if ctx.event.name == "soft_prompt_answered" then return { action = "request_permission" } end
            """)
        let model = try fixedModel("inline: { act: 1 }")
        let result = await Simulation.run(
            policies: [policy], model: model, options: SimulationOptions(users: 20, days: 1, seed: 5, workers: 1))
        let answers = result.policies[0].answers
        #expect(answers.inlineShown == 20 && answers.inlineActed == 20)
        #expect(answers.dialogsAfterAccept == 20)
        #expect(answers.softPrompts == 0)
    }
}
