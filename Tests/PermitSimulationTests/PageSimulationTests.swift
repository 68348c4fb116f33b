import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// Information pages (`inform`) and `dismiss` in `permit simulate`: a simulated user reads a
/// page and taps its button, which the policy hears as `inform_answered`; neither is a prompt,
/// so neither wears a user out.
@Suite struct PageSimulationTests {
    /// A page at every feature open, whatever the status; `dismiss` after its answer; with
    /// `asks`, the dialog once the page was answered `ok` twice (the answers reach the policy).
    static func pagePolicy(asks: Bool) throws -> SimulationPolicy {
        try inline(
            "pages",
            """
            if ctx.event.name == "feature_opened" then
              return { action = "inform", id = "about", title = "About alerts", message = "What they do.", button = "OK" }
            end
            if ctx.event.name == "inform_answered" then
              if ctx.event.prompt_id ~= "about" or ctx.event.answer ~= "ok" then error("unexpected answer") end
              if \(asks) and ctx.history.inform.ok >= 2 and ctx.status == "not_determined" then
                return { action = "request_permission" }
              end
              return { action = "dismiss" }
            end
            """)
    }

    @Test func pagesAreAnsweredOkAndAnnoyNobody() async throws {
        // Every prompt would make a user delete the app at once; pages must not.
        let model = try fixedModel("annoyance: { uninstall_per_prompt: 1 }", sessions: 2, opens: 2)
        let quiet = await Simulation.run(
            policies: [try Self.pagePolicy(asks: false)], model: model,
            options: SimulationOptions(users: 20, days: 2, seed: 5, workers: 1))
        let pages = quiet.policies[0]
        #expect(pages.errors.isEmpty, "\(pages.firstError ?? "")")
        #expect(pages.warnings.isEmpty)
        #expect(pages.uninstalls == 0)
        #expect(pages.answers.softPrompts == 0 && pages.systemDialogsPerUser == 0 && pages.settingsPromptsPerUser == 0)

        // The second `ok` brings the dialog: the simulated users answered the pages.
        let asking = await Simulation.run(
            policies: [try Self.pagePolicy(asks: true)], model: try fixedModel(sessions: 2, opens: 2),
            options: SimulationOptions(users: 20, days: 1, seed: 5, workers: 1))
        #expect(asking.policies[0].errors.isEmpty, "\(asking.policies[0].firstError ?? "")")
        #expect(asking.policies[0].systemDialogsPerUser >= 1)
    }
}
