import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// A model's figures per experiment arm (`arms:`): a wording test whose arms the model says
/// answer alike shows no difference beyond chance, and one whose arms answer differently shows
/// the difference the model gives.
@Suite("Figures per experiment arm")
struct ArmFiguresTests {
    /// A wording A/B test: both arms show a soft prompt at the first feature open (in their own
    /// words) and ask on an accept; nothing else differs.
    static func wordingPolicy() throws -> SimulationPolicy {
        try SimulationPolicy(
            source: """
                return { name = "wording", experiments = { wording = { plain = 50, warm = 50 } },
                  decide = function(ctx)
                    if ctx.event.name == "soft_prompt_answered" and ctx.event.answer == "accept" then
                      return { action = "request_permission", options = { "alert" } }
                    end
                    if ctx.event.name == "feature_opened" and ctx.status == "not_determined"
                      and ctx.history.soft_prompt.shown == 0 then
                      local warm = ctx.user.arms.wording == "warm"
                      return { action = "soft_prompt", title = warm and "Never miss a lesson" or "Notifications",
                        message = "m", accept = "a", decline = "d" }
                    end
                  end }
                """, chunkName: "wording.lua")
    }

    static func armDifference(_ arms: String, seed: UInt64 = 5) async throws -> (Difference, SimulationResult) {
        let result = await Simulation.run(
            policies: [try Self.wordingPolicy()], model: try fixedModel(arms), options: SimulationOptions(users: 3000, days: 1, seed: seed))
        let policy = try #require(result.policies.first)
        let plain = try #require(policy.arms.first { $0.arm == "plain" }), warm = try #require(policy.arms.first { $0.arm == "warm" })
        return (warm.result.difference(.fullAlerts, day: 1, from: plain.result), result)
    }

    /// Known answer: the arms answer with the same figures, so they differ by chance alone; the
    /// arm's figures written out equal to the model's change no draw at all.
    @Test func armsWithTheSameFiguresShowNoDifferenceBeyondChance() async throws {
        let (difference, result) = try await Self.armDifference("")
        #expect(difference.verdict == .tooCloseToCall, "\(difference)")
        #expect(difference.interval.low < 0 && difference.interval.high > 0)
        let (same, sameResult) = try await Self.armDifference("arms: { wording: { warm: { soft_prompt: { accept: 0.3 } } } }")
        #expect(same == difference)
        #expect(sameResult.json() == result.json())
    }

    /// Known answer: the warm arm accepts 70% against the model's 30%, and 85% of those who
    /// accept allow the dialog: the warm arm reaches (0.7 − 0.3) × 0.85 = 34 points more users.
    @Test func armsWithDifferentFiguresShowTheirDifference() async throws {
        let (difference, result) = try await Self.armDifference("arms: { wording: { warm: { soft_prompt: { accept: 0.7 } } } }")
        #expect(difference.verdict == .clearDifference, "\(difference)")
        #expect(difference.interval.low < 0.34 && 0.34 < difference.interval.high, "\(difference)")
        let warm = try #require(result.policies[0].arms.first { $0.arm == "warm" })
        let accepted = Double(warm.result.answers.softAccepted) / Double(warm.result.answers.softPrompts)
        #expect(abs(accepted - 0.7) < 0.05, "the warm arm's users accept at its own figure: \(accepted)")
        #expect(!result.warnings.contains { $0.message.contains("arm") }, "\(result.warnings)")
    }

    @Test func armFiguresAreReadAndCheckedWithFileLineAndField() throws {
        let model = try fixedModel(
            """
            arms:
              wording:
                plain: {}
                warm: { soft_prompt: { accept: 0.5 }, system_dialog: { allow_after_soft_accept: 0.9 } }
            """)
        #expect(
            model.armFigures.overrides == [
                "wording": ["plain": [:], "warm": ["soft_prompt.accept": 0.5, "system_dialog.allow_after_soft_accept": 0.9]]
            ])
        let warm = model.armFigures.model(model, arms: ["wording": "warm", "other": "x"])
        #expect(warm.softAccept == 0.5 && warm.allowAfterSoftAccept == 0.9 && warm.softDismiss == model.softDismiss)
        #expect(model.armFigures.model(model, arms: ["wording": "plain"]) == model)

        let cases: [(String, String)] = [
            ("arms: { wording: { warm: { soft_prompt: { accept: 0.95 } } } }", "add up to more than 1"),
            ("arms: { wording: { warm: { soft_prompt: { acept: 0.5 } } } }", "acept"),
            ("arms: { wording: { warm: { annoyance: { deny_increase_per_prompt: 0.1 } } } }", "annoyance"),
            (
                "arms: { wording: { warm: { soft_prompt: { accept: 0.5 } } }, timing: { late: { soft_prompt: { accept: 0.4 } } } }",
                "soft_prompt.accept is set by arms of both wording and timing"
            ),
            ("arms: { wording: { warm: { soft_prompt: { accept: 1.5 } } } }", "out of range"),
        ]
        for (text, message) in cases {
            do {
                _ = try fixedModel(text)
                Issue.record("\(text) must be refused")
            } catch let error as InputError {
                #expect(error.description.contains("test-model.yaml:9"), "\(error)")
                #expect(error.description.contains(message), "\(error)")
            }
        }
    }

    /// A drawn model moves every arm with the model's figure, keeping the arms' difference.
    @Test func aDrawKeepsTheArmsDifference() throws {
        let model = try fixedModel("arms: { wording: { warm: { soft_prompt: { accept: 0.5 } } } }")
            .with(figure: "soft_prompt.accept", value: 0.3, range: 0.1...0.4)
        var rng = SplitMix64(seed: 3)
        for _ in 0..<5 {
            let drawn = model.drawn(&rng).model
            let warm = try #require(drawn.armFigures.overrides["wording"]?["warm"]?["soft_prompt.accept"])
            #expect(abs(warm - drawn.softAccept - 0.2) < 1e-9, "\(warm) against \(drawn.softAccept)")
        }
    }

    /// Arms no policy of the run has are named: nobody would answer with their figures.
    @Test func armsNoPolicyHasAreWarnedOf() async throws {
        let result = await Simulation.run(
            policies: [try Self.wordingPolicy()],
            model: try fixedModel("arms: { wordng: { warm: { soft_prompt: { accept: 0.5 } } }, wording: { hot: {} } }"),
            options: SimulationOptions(users: 20, days: 1, seed: 1, workers: 1))
        let messages = result.warnings.map(\.message)
        #expect(messages.contains { $0.contains("experiment \"wordng\" (did you mean \"wording\"?), which no policy") }, "\(messages)")
        #expect(messages.contains { $0.contains("arm \"hot\" of experiment \"wording\", which has arms plain, warm") }, "\(messages)")
    }
}
