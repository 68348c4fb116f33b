import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// The fit on logs that follow users for different times, or arrive repeated or empty: quiet
/// users who leave quiet delivery by a later dialog still count until then, groups' intervals
/// carry the slope they are read off, a batch delivered twice is counted once, and an empty log
/// is an error.
@Suite("Fit: censoring, groups and bad logs")
struct FitCensoringTests {
    /// Quiet delivery at the first launch; from the tenth day on (after every choice of the
    /// model's 1 to 7 days), a quiet user is asked for full alerts at each session, so every user
    /// who keeps quiet delivery leaves it by a dialog.
    static let asksQuietUsersLater = """
        local e = ctx.event.name
        if e == "app_launch" and ctx.status == "not_determined" then
          return { action = "request_permission", options = { "provisional", "alert", "sound" } }
        end
        if (e == "app_launch" or e == "app_foreground") and ctx.status == "provisional"
          and ctx.history.first_launch_at and ctx.now - ctx.history.first_launch_at >= 10 * 86400 then
          return { action = "request_permission", options = { "alert", "sound" } }
        end
        """

    /// The split the new team's users follow: 60% keep quiet delivery.
    static let truth = """
        os_versions: { "17.5": 1 }
        sessions_per_day: { poisson: 1.5 }
        feature_opens_per_session: 1
        features: { reminders: 1 }
        soft_prompt: { accept: 0.5 }
        system_dialog: { allow_cold: 0.4, allow_after_soft_accept: 0.8 }
        settings_prompt: { open: 0.3, enable: 0.5 }
        provisional: { keep_quiet: 0.6, turn_off: 0.3, deliver_immediately: 0.1, decide_after_days: { uniform: [1, 7] } }
        """

    static func fit(seed: UInt64, users: Int) async throws -> FittedModel {
        let model = try UserModel.parse(truth, file: "quiet-truth.yaml")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        _ = await Simulation.run(
            policies: [try inline("asks-quiet-later", asksQuietUsersLater)], model: model,
            options: SimulationOptions(users: users, days: 14, seed: seed, workers: 2), records: log)
        try log.finish(policies: 1, users: users)
        var fit = RecordFit()
        try fit.read(contentsOf: file, name: "records.jsonl")
        return FittedModel(fit: fit, base: model, baseText: truth, baseName: "quiet-truth.yaml")
    }

    /// Known answer: keep_quiet is 0.6. Users who left quiet delivery by the later dialog were
    /// dropped before, and those are the ones who keep it: the estimate came out near 0 (0.003
    /// [0, 0.018] on 800 users, seed 1).
    @Test(.disabled(if: underSanitizer, "a frequency over many runs: make test measures it"))
    func keepQuietIsRecoveredWhenThePolicyLaterAsksQuietUsers() async throws {
        var covered = 0
        let seeds = 4
        for seed in 1...UInt64(seeds) {
            let fitted = try await Self.fit(seed: seed, users: 800)
            let keep = try #require(fitted.figures["provisional.keep_quiet"])
            let off = try #require(fitted.figures["provisional.turn_off"])
            print("seed \(seed): keep_quiet \(keep.value) \(keep.interval), turn_off \(off.value) \(off.interval), n \(keep.n)")
            if keep.interval.contains(0.6) { covered += 1 }
            #expect(abs(keep.value - 0.6) < 0.12, "seed \(seed): keep_quiet \(keep.value) \(keep.interval)")
            #expect(fitted.yaml.contains("who left quiet delivery by a dialog or Settings, each counted until then"))
        }
        #expect(covered >= seeds - 1, "\(covered) of \(seeds) intervals hold 0.6")
    }

    /// The estimator on a known table: 10 users; 2 turn off on day 1, 1 goes to immediate delivery on day
    /// 2, 3 are censored on day 1 (after the day-1 choices), the other 4 followed past day 2.
    /// S(1) = 1 − 2/10 = 0.8; at day 2, 5 at risk: S(2) = 0.8 × (1 − 1/5) = 0.64; turn_off
    /// 2/10 = 0.2, immediate 0.8 × 1/5 = 0.16; the three add up to 1.
    @Test func theEstimatorOnAKnownTable() throws {
        var follows = [QuietChoices.Follow](repeating: .init(days: 1, outcome: .turnOff), count: 2)
        follows.append(.init(days: 2, outcome: .immediate))
        follows += [QuietChoices.Follow](repeating: .init(days: 1, outcome: nil), count: 3)
        follows += [QuietChoices.Follow](repeating: .init(days: 5, outcome: nil), count: 4)
        let estimate = try #require(QuietChoices.estimate(follows))
        #expect(abs(estimate.keep - 0.64) < 1e-12 && abs(estimate.turnOff - 0.2) < 1e-12 && abs(estimate.immediate - 0.16) < 1e-12)
        // Greenwood: 0.64² × (2/(10·8) + 1/(5·4)) = 0.4096 × 0.075; n = 0.64 × 0.36 / that.
        let n = 0.64 * 0.36 / (0.4096 * 0.075)
        #expect(abs(estimate.effectiveUsers - n) < 1e-9, "\(estimate.effectiveUsers)")
        #expect(QuietChoices.estimate([.init(days: 3, outcome: nil)]) == nil, "no choice seen: nothing to estimate")
    }

    /// How many seeds the group coverage test runs; `PERMIT_FIT_GROUP_SEEDS=100` for the
    /// measurement docs/simulate.md quotes.
    static var groupSeeds: Int { ProcessInfo.processInfo.environment["PERMIT_FIT_GROUP_SEEDS"].flatMap(Int.init) ?? 6 }

    /// The round trip's groups (OS versions, locales) all follow the overall truth, so every
    /// group's interval should hold its figure's true value about 95% of the time.
    @Test(.disabled(if: underSanitizer, "a frequency over many runs: make test measures it"))
    func byGroupIntervalsHoldTheTruth() async throws {
        var covered: [String: Int] = [:], total: [String: Int] = [:]
        for seed in 1...Self.groupSeeds {
            let fitted = try await FitTests.roundTrip(seed: UInt64(seed))
            for (name, groups) in fitted.groups {
                guard let truth = FitTests.trueValues[name] else { continue }
                for (_, figure) in groups {
                    total[name, default: 0] += 1
                    if figure.interval.contains(truth) { covered[name, default: 0] += 1 }
                }
            }
        }
        let all = total.values.reduce(0, +), held = covered.values.reduce(0, +)
        let report = total.keys.sorted().map { "\($0) \(covered[$0] ?? 0)/\(total[$0]!)" }.joined(separator: ", ")
        print("by-group coverage over \(Self.groupSeeds) seeds: \(held)/\(all); \(report)")
        #expect(all > 50)
        #expect(held >= FitTests.floor(of: all), "\(held) of \(all): \(report)")
        for name in ["settings_prompt.open", "system_dialog.allow_cold", "soft_prompt.accept"] {
            guard let n = total[name] else { continue }
            #expect((covered[name] ?? 0) >= FitTests.floor(of: n), "\(name): \(report)")
        }
    }

    /// Known answer: sessions per day drawn from a negative binomial (mean 1.5, dispersion 0.8:
    /// variance 3.3, over twice a Poisson's) are fitted as one, with the mean inside its
    /// interval and the dispersion near 0.8; Poisson sessions stay Poisson.
    @Test func sessionsThatSpreadMoreThanAPoissonAreFittedAsANegativeBinomial() async throws {
        let spread = FitTests.truth.replacingOccurrences(
            of: "sessions_per_day: { poisson: 1.5 }", with: "sessions_per_day: { negative_binomial: { mean: 1.5, dispersion: 0.8 } }")
        #expect(spread != FitTests.truth)
        let model = try UserModel.parse(spread, file: "spread.yaml")
        #expect(model.sessionsPerDay == .negativeBinomial(mean: 1.5, dispersion: 0.8))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        _ = await Simulation.run(
            policies: [try FitTests.askingPolicy()], model: model, options: SimulationOptions(users: 400, days: 14, seed: 3, workers: 2),
            records: log)
        try log.finish(policies: 1, users: 400)
        var fit = RecordFit()
        try fit.read(contentsOf: file, name: "records.jsonl")
        let fitted = FittedModel(fit: fit, base: model, baseText: spread, baseName: "spread.yaml")
        let mean = try #require(fitted.figures["sessions_per_day"])
        let dispersion = try #require(fitted.figures["sessions_per_day.dispersion"], "\(fitted.yaml)")
        #expect(mean.interval.contains(1.5), "\(mean)")
        #expect(abs(dispersion.value - 0.8) < 0.25, "\(dispersion.value)")
        let back = try UserModel.parse(fitted.yaml, file: "fitted.yaml")
        guard case .negativeBinomial = back.sessionsPerDay else {
            Issue.record("fitted as \(back.sessionsPerDay)")
            return
        }
        // The sampler: a large sample has the mean and variance the form promises.
        var rng = SplitMix64.stream(seed: 7, index: 0)
        let draws = (0..<40_000).map { _ in Double(CountDistribution.negativeBinomial(mean: 1.5, dispersion: 0.8).sample(&rng)) }
        let m = draws.reduce(0, +) / Double(draws.count)
        let v = draws.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(draws.count - 1)
        #expect(abs(m - 1.5) < 0.04 && abs(v - 3.3) < 0.2, "mean \(m), variance \(v)")
        let poisson = try await FitTests.roundTrip(seed: 2)
        #expect(poisson.figures["sessions_per_day.dispersion"] == nil && poisson.yaml.contains("sessions_per_day: { poisson: "))
    }

    @Test func aBatchDeliveredTwiceIsCountedOnce() throws {
        let lines = [(1_767_600_000, "app_launch"), (1_767_690_000, "app_foreground"), (1_767_780_000, "app_launch")]
            .map { FitTests.json(time: $0.0, event: $0.1) }
        let once = try Self.read(lines)
        let twice = try Self.read(lines.flatMap { [$0, $0] })
        #expect(twice.duplicateLines == 3 && once.duplicateLines == 0)
        #expect(twice.recordCount == once.recordCount && twice.sessions == once.sessions)
        let fitted = FittedModel(
            fit: twice, base: try UserModel.parse(FitTests.truth, file: "t.yaml"), baseText: FitTests.truth, baseName: "t")
        #expect(fitted.warnings.contains { $0.hasPrefix("3 duplicated lines skipped") }, "\(fitted.warnings)")
    }

    @Test func anEmptyLogIsAnError() throws {
        for text in ["", "\n\n  \n"] {
            #expect(throws: FitInputError.self) { try Self.read(text.isEmpty ? [] : [text]) }
            do {
                _ = try Self.read(text.isEmpty ? [] : [text])
            } catch let error as FitInputError {
                #expect(error.description.hasPrefix("records.jsonl: no records"), "\(error)")
            }
        }
    }

    static func read(_ lines: [String]) throws -> RecordFit {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        var fit = RecordFit()
        try fit.read(contentsOf: file, name: "records.jsonl")
        return fit
    }
}
