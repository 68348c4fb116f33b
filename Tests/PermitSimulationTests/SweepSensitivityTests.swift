import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `permit simulate --sweep ... --objective M --sensitivity N`: how often the sweep's chosen
/// setting stays best on models drawn from the model's ranges, what it flips to, and which
/// figure the choice hangs on.
@Suite("Sweep: sensitivity to the model's assumptions")
struct SweepSensitivityTests {
    /// One param chooses how the app first asks: a soft prompt, then the system dialog on an
    /// accept (`soft_first = true`), or the system dialog cold (`false`).
    static let firstAsk = """
        return {
          name = "first-ask",
          params = { soft_first = true },
          decide = function(ctx)
            local opened = ctx.event.name == "feature_opened" and ctx.status == "not_determined"
            if not ctx.params.soft_first then
              if opened then return { action = "request_permission", options = { "alert", "sound" } } end
              return nil
            end
            if ctx.event.name == "soft_prompt_answered" and ctx.event.answer == "accept" then
              return { action = "request_permission", options = { "alert", "sound" } }
            end
            if opened and ctx.history.soft_prompt.shown == 0 then
              return { action = "soft_prompt", title = "t", message = "m", accept = "a", decline = "d" }
            end
          end,
        }
        """

    /// Every chance pinned but the soft prompt's accept, 0.5 within [0.05, 0.9]: soft-first
    /// reaches accept × 0.85 of the users, a cold ask 0.35 of them, so the soft prompt wins on
    /// the model (42.5% against 35%) and loses on every draw of accept under 0.41 (about 40%).
    static let acceptDecides = """
        os_versions: { "17.5": 1 }
        sessions_per_day: 1
        feature_opens_per_session: 1
        features: { reminders: 1 }
        soft_prompt: { accept: "0.5 [0.05, 0.9]", dismiss: "0.1 [0.1, 0.1]" }
        system_dialog: { allow_cold: "0.35 [0.35, 0.35]", allow_after_soft_accept: "0.85 [0.85, 0.85]" }
        settings_prompt: { open: "0.25 [0.25, 0.25]", enable: "0.6 [0.6, 0.6]" }
        inline: { act: "0.05 [0.05, 0.05]" }
        cold_launch_share: "0.6 [0.6, 0.6]"
        max_prompts_per_day: 3
        """

    static func firstAskSweep(workers: Int = 2, draws: Int = 16) async throws -> SweepResult {
        try await Sweep.run(
            policy: try SimulationPolicy(source: firstAsk, chunkName: "first-ask.lua"),
            axes: [SweepAxis(param: "soft_first", values: [.bool(true), .bool(false)])],
            model: try UserModel.parse(acceptDecides, file: "accept-decides.yaml"),
            options: SimulationOptions(users: 400, days: 2, seed: 5, workers: workers),
            objective: SweepMetric(name: "reach_day_2", days: 2), constraints: [], confirmations: 0, sensitivity: draws)
    }

    @Test func aChoiceTheAcceptChanceDecidesDependsOnIt() async throws {
        let sweep = try await Self.firstAskSweep()
        #expect(sweep.choice?.best == 0, "the soft prompt wins on the model")
        let sensitivity = try #require(sweep.sensitivity)
        #expect(sensitivity.draws.count == 16)
        #expect(sensitivity.staysBest > 2 && sensitivity.staysBest < 16, "\(sensitivity.draws.map(\.best))")
        #expect(sensitivity.winners.contains { $0.setting == 1 && $0.count == 16 - sensitivity.staysBest })
        #expect(sensitivity.mostSensitive.map(\.figure) == ["soft_prompt.accept"], "the pinned figures do not vary")
        #expect(sensitivity.mostSensitive[0].correlation > 0.9, "\(sensitivity.mostSensitive)")
        #expect(!sensitivity.isRobust)
        // accept 0.05 reaches about 4%, 0.9 about 77%: 16 draws spread over most of that.
        #expect(sensitivity.shareRange.lowerBound < 0.3 && sensitivity.shareRange.upperBound > 0.5, "\(sensitivity.shareRange)")

        let text = sweep.text()
        #expect(text.contains("best in \(sensitivity.staysBest) of 16"), "\(text)")
        #expect(text.contains("best instead: soft_first=false in \(16 - sensitivity.staysBest)"), "\(text)")
        #expect(text.contains("soft_prompt.accept (ρ +") && text.contains("higher favours the choice"), "\(text)")
        #expect(text.contains(": depends on assumptions or on the users' noise (soft_prompt.accept)"), "\(text)")

        let json = try #require(JSONSerialization.jsonObject(with: Data(sweep.json().utf8)) as? [String: Any])
        let best = try #require((json["sweep"] as? [String: Any])?["best"] as? [String: Any])
        let drawn = try #require(best["sensitivity"] as? [String: Any])
        #expect(drawn["draws"] as? Int == 16 && drawn["stays_best"] as? Int == sensitivity.staysBest)
        #expect(
            drawn["winners"] as? [String: Int]
                == ["soft_first=true": sensitivity.staysBest, "soft_first=false": 16 - sensitivity.staysBest])
        #expect((drawn["objective_range"] as? [Double])?.count == 2)
        let first = try #require((drawn["most_sensitive"] as? [[String: Any]])?.first)
        #expect(first["figure"] as? String == "soft_prompt.accept" && (first["correlation"] as? Double ?? 0) > 0.9)
        #expect((drawn["verdict"] as? String)?.contains("depends on assumptions or on the users' noise (soft_prompt.accept)") == true)

        let page = sweep.html()
        #expect(XMLParser(data: Data(page.utf8)).parse())
        let answer = try #require(page.firstMatch(of: /<section class="answer">(?s)(.*?)<\/section>/)?.1)
        #expect(
            answer.contains("depends on assumptions or on the users&#39; noise (soft_prompt.accept)")
                || answer.contains("depends on assumptions or on the users' noise (soft_prompt.accept)"), "\(answer)")
        #expect(page.contains("<table class=\"sweep-sensitivity\">"))
        #expect(page.contains("soft_first=false</td><td class=\"num\">\(16 - sensitivity.staysBest) of 16"), "\(page)")
    }

    @Test func aSettingThatWinsWhateverTheModelIsRobust() async throws {
        // Never asking reaches nobody; asking reaches allow_cold of the users, whatever the draw.
        let sweep = try await Sweep.run(
            policy: try SimulationPolicy(source: KnobPolicy.source, chunkName: "knob.lua"),
            axes: [SweepAxis(param: "ask", values: [.bool(false), .bool(true)])], model: try fixedModel(),
            options: SimulationOptions(users: 200, days: 2, seed: 3, workers: 2),
            objective: SweepMetric(name: "reach_day_2", days: 2), constraints: [], confirmations: 2, sensitivity: 20)
        let sensitivity = try #require(sweep.sensitivity)
        #expect(sweep.choice?.best == 1 && sensitivity.staysBest == 20 && sensitivity.clearlyBest == 20 && sensitivity.isRobust)
        #expect(sensitivity.confirmed.staysBest == 2 && sensitivity.confirmed.runs == 2)
        #expect(sensitivity.winners.map(\.setting) == [1] && sensitivity.winners[0].count == 20)
        #expect(sensitivity.mostSensitive.first?.figure == "system_dialog.allow_cold", "\(sensitivity.mostSensitive)")
        let text = sweep.text()
        #expect(text.contains("best in 20 of 20"), "\(text)")
        #expect(!text.contains("best instead"), "nothing else wins: \(text)")
        #expect(
            text.contains(
                "verdict: the best on this model and by a clear margin on 20 of 20 drawn models, confirmed on fresh users: robust to the assumptions"
            ), "\(text)")
        // Without --sensitivity nothing is drawn and the report is what it was.
        let plain = try await Sweep.run(
            policy: try SimulationPolicy(source: KnobPolicy.source, chunkName: "knob.lua"),
            axes: [SweepAxis(param: "ask", values: [.bool(false), .bool(true)])], model: try fixedModel(),
            options: SimulationOptions(users: 200, days: 2, seed: 3, workers: 2),
            objective: SweepMetric(name: "reach_day_2", days: 2), constraints: [])
        #expect(plain.sensitivity == nil && !plain.text().contains("drawn") && !plain.json().contains("\"sensitivity\""))
    }

    @Test func theDrawsAreTheSameOnOneWorkerOrTwo() async throws {
        let one = try await Self.firstAskSweep(workers: 1, draws: 4)
        let two = try await Self.firstAskSweep(workers: 2, draws: 4)
        #expect(one.json() == two.json())
        #expect(one.json().contains("\"stays_best\""))
        #expect(one.sensitivity?.draws.map(\.values) == two.sensitivity?.draws.map(\.values))
    }
}
