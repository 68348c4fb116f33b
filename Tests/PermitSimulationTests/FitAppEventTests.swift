import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitSimulation

/// `permit fit` fits the base model's app events from the records, each in its own form: a
/// per-session mean, a daily chance, the session a one-off comes in, the chance of following
/// another event or a feature.
@Suite("Fit: the app's own events")
struct FitAppEventTests {
    static let truth = """
        os_versions: { "17.5": 1 }
        sessions_per_day: { poisson: 1.5 }
        feature_opens_per_session: 1
        features: { reminders: 0.5, history: 0.5 }
        soft_prompt: { accept: 0.5 }
        system_dialog: { allow_cold: 0.4, allow_after_soft_accept: 0.8 }
        settings_prompt: { open: 0.3, enable: 0.5 }
        events:
          lesson_completed: { per_session: { poisson: 1.2 }, properties: { course: "5", minutes: 5, plan: { weighted: { free: 0.8, pro: 0.2 } } } }
          daily_goal_set: { once_per_day: 0.7 }
          signed_in: { once_after_session: 2 }
          checkout_done: { follows: lesson_completed, chance: 0.4 }
          reminder_set: { follows: reminders, chance: 0.5 }
          never_heard: { per_session: 1 }
        """

    /// The true value of each event figure the fit reports.
    static let trueValues: [String: Double] = [
        "events.lesson_completed.per_session": 1.2, "events.daily_goal_set.once_per_day": 0.7,
        "events.signed_in.once_after_session": 2, "events.checkout_done.chance": 0.4, "events.reminder_set.chance": 0.5,
    ]

    /// A policy that declares every event but `never_heard`, and never prompts.
    static func listener() throws -> SimulationPolicy {
        try SimulationPolicy(
            source: """
                return { name = "listener",
                  events = { "lesson_completed", "daily_goal_set", "signed_in", "checkout_done", "reminder_set" },
                  decide = function(ctx) return nil end }
                """, chunkName: "listener.lua")
    }

    static func fit(seed: UInt64) async throws -> FittedModel {
        let model = try UserModel.parse(truth, file: "events-truth.yaml")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        _ = await Simulation.run(
            policies: [try listener()], model: model, options: SimulationOptions(users: 200, days: 10, seed: seed, workers: 2),
            records: log)
        try log.finish(policies: 1, users: 200)
        var fit = RecordFit()
        try fit.read(contentsOf: file, name: "records.jsonl")
        return FittedModel(fit: fit, base: model, baseText: truth, baseName: "events-truth.yaml")
    }

    /// Known answer: each event's interval holds its true figure in about 95% of seeds (at least
    /// the binomial floor of 20), and the fitted model reads back with the same events.
    @Test(.disabled(if: underSanitizer, "a frequency over many runs: make test measures it"))
    func everyEventFigureIsRecoveredWithinItsInterval() async throws {
        var covered: [String: Int] = [:]
        let seeds = 20
        for seed in 1...UInt64(seeds) {
            let fitted = try await Self.fit(seed: seed)
            for (name, truth) in Self.trueValues {
                let figure = try #require(fitted.figures[name], "seed \(seed): \(name) was not fitted")
                if figure.interval.contains(truth) { covered[name, default: 0] += 1 }
            }
            if seed == 1 {
                let model = try UserModel.parse(fitted.yaml, file: "fitted.yaml")
                let original = try UserModel.parse(Self.truth, file: "events-truth.yaml")
                #expect(model.appEvents.map(\.name) == original.appEvents.map(\.name))
                #expect(model.appEvents.map(\.drawnProperties) == original.appEvents.map(\.drawnProperties))
                #expect(model.appEvents.map(\.event) == original.appEvents.map(\.event), "fixed properties kept, \"5\" still a string")
                #expect(model.appEvents.first { $0.name == "signed_in" }?.timing == .onceAfterSession(2))
                #expect(fitted.yaml.contains("never_heard: { per_session: 1 }  # not identified by the records (never logged"))
                #expect(fitted.warnings.contains { $0.hasPrefix("events.never_heard: never logged") }, "\(fitted.warnings)")
            }
        }
        let report = Self.trueValues.keys.sorted().map { "\($0) \(covered[$0] ?? 0)/\(seeds)" }.joined(separator: ", ")
        print("app event fit coverage over \(seeds) seeds: \(report)")
        for name in Self.trueValues.keys {
            #expect((covered[name] ?? 0) >= FitTests.floor(of: seeds), "\(name): \(report)")
        }
    }

    /// Events the records log that the base model does not have are named, not dropped silently.
    @Test func eventsTheBaseModelLacksAreNamed() async throws {
        let fitted = try await Self.fit(seed: 1)
        var base = Self.truth.components(separatedBy: "\n")
        base.removeAll { $0.contains("daily_goal_set") }
        let text = base.joined(separator: "\n")
        var fit = RecordFit()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        _ = await Simulation.run(
            policies: [try Self.listener()], model: try UserModel.parse(Self.truth, file: "t.yaml"),
            options: SimulationOptions(users: 50, days: 3, seed: 1, workers: 2), records: log)
        try log.finish(policies: 1, users: 50)
        try fit.read(contentsOf: file, name: "records.jsonl")
        let lacking = FittedModel(fit: fit, base: try UserModel.parse(text, file: "b.yaml"), baseText: text, baseName: "b.yaml")
        #expect(
            lacking.warnings.contains {
                $0.hasPrefix("events: the records log daily_goal_set (") && $0.contains("which b.yaml does not have")
            })
        #expect(!fitted.warnings.contains { $0.hasPrefix("events: the records log") }, "\(fitted.warnings)")
    }
}
