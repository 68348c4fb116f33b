import Testing

@testable import PermitSimulation

/// The first-prompt chances and the per-prompt slope `permit fit` writes: the model's own form,
/// `max(0, chance − k × slope)`, fitted to answers counted by earlier prompts.
@Suite("Fit: first-prompt chances and annoyance")
struct AnnoyanceFitTests {
    static func counts(_ successes: Int, of trials: Int) -> Counts {
        var counts = Counts()
        for index in 0..<trials { counts.add(index < successes) }
        return counts
    }

    /// Answers exactly on the line: 50% at a first prompt, 20% after ten prompts, so 3 points off
    /// per prompt; a second kind seen only after one prompt gets its first-prompt chance from it.
    @Test func answersOnTheLineGiveItsChancesAndSlope() throws {
        let fit = AnnoyanceFit(
            answers: [
                "soft_prompt.accept": [0: Self.counts(500, of: 1_000), 10: Self.counts(200, of: 1_000)],
                "system_dialog.allow_after_soft_accept": [1: Self.counts(770, of: 1_000)],
            ], baseSlope: 0.2)
        let slope = try #require(fit.slope)
        #expect(abs(slope.value - 0.03) < 1e-6 && slope.interval.contains(0.03) && slope.n == 3_000)
        #expect(abs(fit.chances["soft_prompt.accept"]!.value - 0.5) < 1e-6)
        #expect(abs(fit.chances["system_dialog.allow_after_soft_accept"]!.value - 0.8) < 1e-6)
        #expect(fit.mostEarlierPrompts == 10)
    }

    /// Past zero a cell can only hold noes: those do not pull the line down, as they would in a
    /// straight-line fit.
    @Test func cellsPastZeroAreNoesThatDoNotBendTheLine() throws {
        let fit = AnnoyanceFit(
            answers: [
                "settings_prompt.open": [0: Self.counts(400, of: 1_000), 5: Self.counts(250, of: 1_000), 30: Self.counts(0, of: 2_000)]
            ],
            baseSlope: 0)
        #expect(abs(try #require(fit.slope).value - 0.03) < 1e-6)
        #expect(abs(fit.chances["settings_prompt.open"]!.value - 0.4) < 1e-6)
    }

    /// A small app's logs: nobody switched notifications on in Settings. That figure's chance
    /// is 0 with an interval its answers allow, and it does not stop the other figures' fit.
    @Test func aFigureWhoseAnswersAllAgreeKeepsTheOthersFitted() throws {
        let fit = AnnoyanceFit(
            answers: [
                "soft_prompt.accept": [0: Self.counts(500, of: 1_000), 10: Self.counts(200, of: 1_000)],
                "settings_prompt.enable": [1: Self.counts(0, of: 40), 2: Self.counts(0, of: 20)],
            ], baseSlope: 0)
        let slope = try #require(fit.slope)
        #expect(abs(slope.value - 0.03) < 1e-6 && slope.interval.high < 0.05)
        let accept = try #require(fit.chances["soft_prompt.accept"])
        #expect(abs(accept.value - 0.5) < 1e-6 && accept.interval.high - accept.interval.low < 0.1)
        let enable = try #require(fit.chances["settings_prompt.enable"])
        #expect(enable.value < 0.05 && enable.interval.low == 0 && enable.interval.contains(enable.value), "\(enable)")
        #expect(enable.interval.high < 0.15, "\(enable)")
    }

    /// Every answer of a kind after the same number of prompts: no slope can be told; the base's
    /// is held and the chances are read off the line it draws.
    @Test func withoutDifferentCountsTheBaseSlopeIsHeld() {
        let fit = AnnoyanceFit(
            answers: ["soft_prompt.accept": [0: Self.counts(450, of: 1_000)], "settings_prompt.enable": [2: Self.counts(300, of: 500)]],
            baseSlope: 0.05)
        #expect(fit.slope == nil && fit.slopeUsed == 0.05)
        #expect(abs(fit.chances["soft_prompt.accept"]!.value - 0.45) < 1e-6)
        #expect(abs(fit.chances["settings_prompt.enable"]!.value - 0.7) < 1e-6)
        #expect(fit.chances["settings_prompt.enable"]!.interval.contains(0.7))
    }
}
