import Foundation
import PermitCore
import PermitInput
import Testing

@testable import PermitSimulation

/// `permit fit`'s estimates: read from the records `permit simulate --records` writes, they must
/// recover the model the records were simulated from, within their intervals about 95% of the time.
@Suite("Fit from decision records")
struct FitTests {
    /// A population with every identifiable figure set to a known value: each prompt seen takes
    /// 0.03 off every later "yes" chance (as in the default model), and nobody uninstalls.
    static let truth = """
        name: truth
        os_versions: { "16.7": 0.4, "17.5": 0.6 }
        locales: { en: 0.7, de: 0.3 }
        sessions_per_day: { poisson: 1.5 }
        feature_opens_per_session: { poisson: 1.0 }
        features: { reminders: 0.6, history: 0.4 }
        soft_prompt: { accept: 0.5, dismiss: 0.2 }
        system_dialog: { allow_cold: 0.4, allow_after_soft_accept: 0.8 }
        settings_prompt: { open: 0.4, enable: 0.5 }
        provisional: { keep_quiet: 0.5, turn_off: 0.3, deliver_immediately: 0.2, decide_after_days: { uniform: [0, 3] } }
        annoyance: { deny_increase_per_prompt: 0.03, uninstall_per_prompt: 0 }
        max_prompts_per_day: 3
        cold_launch_share: 0.5
        """

    /// The true value of each figure the fit reports for `truth`.
    static let trueValues: [String: Double] = [
        "os_versions.17.5": 0.6, "locales.en": 0.7, "sessions_per_day": 1.5, "feature_opens_per_session": 1.0,
        "features.reminders": 0.6, "soft_prompt.accept": 0.5, "soft_prompt.dismiss": 0.2,
        "system_dialog.allow_cold": 0.4, "system_dialog.allow_after_soft_accept": 0.8, "settings_prompt.open": 0.4,
        "settings_prompt.enable": 0.5, "cold_launch_share": 0.5, "provisional.keep_quiet": 0.5,
        "provisional.turn_off": 0.3, "provisional.deliver_immediately": 0.2, "annoyance.deny_increase_per_prompt": 0.03,
    ]

    /// A third of the users are asked cold at a feature open, a third get a soft prompt first,
    /// a third get quiet delivery at launch; a denied user gets a settings prompt at each feature open.
    static func askingPolicy() throws -> SimulationPolicy {
        try inline(
            "asker",
            """
            local b, e = ctx.user.bucket, ctx.event.name
            if ctx.status == "not_determined" then
              if b >= 67 then
                if e == "app_launch" then return { action = "request_permission", options = { "provisional", "alert", "sound" } } end
                return nil
              end
              if e == "feature_opened" then
                if b < 34 then return { action = "request_permission", options = { "alert", "sound" } } end
                return { action = "soft_prompt", title = "Reminders", message = "Allow?", accept = "Yes", decline = "No" }
              end
              if e == "soft_prompt_answered" and ctx.event.answer == "accept" then
                return { action = "request_permission", options = { "alert", "sound" } }
              end
              return nil
            end
            if ctx.status == "denied" and e == "feature_opened" then
              return { action = "settings_prompt", title = "Off", message = "Turn them on", open = "Open", cancel = "Not now" }
            end
            return nil
            """)
    }

    /// Simulates `users` × `days` with records, and fits them.
    static func roundTrip(seed: UInt64, users: Int = 300, days: Int = 14) async throws -> FittedModel {
        let model = try UserModel.parse(truth, file: "truth.yaml")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        _ = await Simulation.run(
            policies: [try askingPolicy()], model: model,
            options: SimulationOptions(users: users, days: days, seed: seed, workers: 2), records: log)
        try log.finish(policies: 1, users: users)
        var fit = RecordFit()
        try fit.read(contentsOf: file, name: "records.jsonl")
        return FittedModel(fit: fit, base: model, baseText: truth, baseName: "truth.yaml")
    }

    /// How many seeds the coverage test runs: 20 in the suite (about 40 s of a debug build on two
    /// cores); `PERMIT_FIT_SEEDS=100` runs the 100-seed check docs/simulate.md quotes.
    static var seeds: Int { ProcessInfo.processInfo.environment["PERMIT_FIT_SEEDS"].flatMap(Int.init) ?? 20 }

    /// The fewest of `runs` intervals that must hold the truth: below it, a true coverage of 95%
    /// would land with a chance under 0.1% (binomial): 15 of 20, 87 of 100, 365 of 400.
    static func floor(of runs: Int) -> Int {
        var below = 0.0
        for k in 0...runs {
            // C(runs, k) 0.95^k 0.05^(runs-k), through logs to keep it finite.
            let n = Double(runs), x = Double(k)
            let ways: Double = lgamma(n + 1) - lgamma(x + 1) - lgamma(n - x + 1)
            let odds: Double = x * log(0.95) + (n - x) * log(0.05)
            let term = exp(ways + odds)
            if below + term > 0.001 { return k }
            below += term
        }
        return runs
    }

    /// Each figure's 95% interval holds its true value in about 95% of seeds: at least `floor`
    /// of them, per figure (the coverage of each is printed).
    @Test func everyIdentifiableFigureIsRecoveredWithinItsIntervalAbout95PercentOfTheTime() async throws {
        var covered: [String: Int] = [:]
        let seeds = Self.seeds
        for seed in 1...seeds {
            let fitted = try await Self.roundTrip(seed: UInt64(seed))
            for (name, truth) in Self.trueValues {
                let figure = try #require(fitted.figures[name], "seed \(seed): \(name) was not fitted")
                if figure.interval.contains(truth) { covered[name, default: 0] += 1 }
            }
        }
        let report = Self.trueValues.keys.sorted().map { "\($0) \(covered[$0] ?? 0)/\(seeds)" }.joined(separator: ", ")
        print("fit round trip coverage over \(seeds) seeds: \(report)")
        let floor = Self.floor(of: seeds)
        for name in Self.trueValues.keys {
            #expect((covered[name] ?? 0) >= floor, "\(name): \(covered[name] ?? 0) of \(seeds) intervals hold the truth; \(report)")
        }
    }

    @Test func theCoverageFloorIsTheBinomialOne() {
        #expect(Self.floor(of: 20) == 15 && Self.floor(of: 100) == 87 && Self.floor(of: 400) == 365)
    }

    @Test func theFittedModelReadsBackAndSaysWhatItCouldNotFit() async throws {
        let fitted = try await Self.roundTrip(seed: 5)
        let model = try UserModel.parse(fitted.yaml, file: "fitted.yaml")
        #expect(abs(model.softAccept - 0.5) < 0.1)
        #expect(fitted.yaml.contains("soft_prompt: { accept: "))
        #expect(fitted.yaml.contains("# accept at a first prompt 95% ["))
        #expect(fitted.yaml.contains("annoyance: { deny_increase_per_prompt: "))
        #expect(fitted.yaml.contains("uninstall_per_prompt not identified by the records"))
        #expect(abs(model.denyIncreasePerPrompt - 0.03) < 0.02)
        // Each fitted chance carries its interval as its range, for --sensitivity to draw from
        // (not an assumption's wide default range).
        for name in ["soft_prompt.accept", "settings_prompt.open", "annoyance.deny_increase_per_prompt", "cold_launch_share"] {
            let figure = try #require(model.uncertainFigures.first { $0.name == name }, "\(name)")
            let interval = try #require(fitted.figures[name]?.interval)
            #expect(!figure.isDefaultRange, "\(name)")
            #expect(
                abs(figure.range.lowerBound - interval.low) <= 0.001 && abs(figure.range.upperBound - interval.high) <= 0.001, "\(name)")
        }
        // By group, the chances prompts lower are first-prompt chances too: a denied user's
        // settings prompts come again and again, so their plain share is far below 0.4.
        let group = try #require(
            fitted.yaml.components(separatedBy: "\n").first { $0.hasPrefix("#   settings_prompt.open, locale en: ") })
        let value = try #require(Double(group.dropFirst("#   settings_prompt.open, locale en: ".count).prefix { $0 != " " }))
        #expect(group.contains(" at a first prompt 95% [") && abs(value - 0.4) < 0.08, "\(group)")
        #expect(fitted.yaml.contains("# max_prompts_per_day: not identified by the records"))
        #expect(fitted.yaml.contains("# decide_after_days not identified by the records"))
        #expect(fitted.warnings.isEmpty, "\(fitted.warnings)")
    }

    /// The point of a fit: the fitted model, simulated, does what the users it came from did.
    /// Answers pooled over every prompt would put each later prompt's annoyance into the chances
    /// and the model would apply it again: reach would come out several points low.
    @Test func aFittedModelReachesWhatTheUsersItCameFromReached() async throws {
        let truth = try UserModel.parse(Self.truth, file: "truth.yaml")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        let users = 4_000, days = 14
        let original = await Simulation.run(
            policies: [try Self.askingPolicy()], model: truth, options: SimulationOptions(users: users, days: days, seed: 11, workers: 2),
            records: log)
        try log.finish(policies: 1, users: users)
        var fit = RecordFit()
        try fit.read(contentsOf: file, name: "records.jsonl")
        let fitted = FittedModel(fit: fit, base: truth, baseText: Self.truth, baseName: "truth.yaml")
        let model = try UserModel.parse(fitted.yaml, file: "fitted.yaml")
        let again = await Simulation.run(
            policies: [try Self.askingPolicy()], model: model, options: SimulationOptions(users: users, days: days, seed: 12, workers: 2))
        let difference = again.policies[0].difference(.fullAlerts, day: days, from: original.policies[0])
        #expect(
            difference.interval.contains(0) && abs(difference.value) < 0.03,
            "fitted reach \(again.policies[0].share(.fullAlerts, day: days)) vs \(original.policies[0].share(.fullAlerts, day: days)): \(difference)"
        )
    }

    @Test func recordsWithoutPromptsWarnAndKeepTheBase() throws {
        let base = try UserModel.parse(Self.truth, file: "truth.yaml")
        var fit = RecordFit()
        for (time, event) in [(1_767_600_000, "app_launch"), (1_767_690_000, "app_foreground"), (1_767_780_000, "app_launch")] {
            try fit.add(line(time: time, event: event))
        }
        let fitted = FittedModel(fit: fit, base: base, baseText: Self.truth, baseName: "truth.yaml")
        #expect(fitted.warnings.contains { $0.hasPrefix("soft_prompt: no soft prompt was answered") })
        #expect(fitted.warnings.contains { $0.hasPrefix("system_dialog.allow_cold:") })
        #expect(fitted.yaml.contains("# soft_prompt: not identified by the records (no soft prompt answered): truth.yaml's"))
        let model = try UserModel.parse(fitted.yaml, file: "fitted.yaml")
        #expect(model.softAccept == 0.5 && model.allowCold == 0.4)
        #expect(model.uncertainFigures.first { $0.name == "soft_prompt.accept" }?.isDefaultRange == true)
        #expect(fitted.figures["sessions_per_day"]?.value == 1.0)
    }

    static func json(time: Int, event: String, schema: Any = 1) -> String {
        """
        {"install":"a","locale":"en","os":"17.5","user":null,"record":{"schema":\(schema),"policy":{"name":"p","version":null},"time":\(time),"event":{"name":"\(event)"},"status_before":"not_determined","status_after":"not_determined","decision":{"action":"none"},"proposed_action":null,"arms":{},"warnings":[],"errors":[],"dialog_shown":false,"reminders_scheduled":[],"reminders_removed":[],"follow_up":null}}
        """
    }

    func line(time: Int, event: String) throws -> FitRecord {
        try FitRecord.parse(line: Self.json(time: time, event: event), file: "t.jsonl", line: 1)
    }

    @Test(arguments: [
        ("not json", "t.jsonl:3: not JSON"),
        ("[1, 2]", "t.jsonl:3: not a JSON object"),
        (FitTests.json(time: 1, event: "app_launch", schema: 2), "t.jsonl:3: record schema 2 is not one this build reads"),
        (FitTests.json(time: 1, event: "app_launch").replacingOccurrences(of: "\"os\":\"17.5\",", with: ""), "t.jsonl:3: missing \"os\""),
        (
            FitTests.json(time: 1, event: "app_launch").replacingOccurrences(of: "\"time\":1,", with: "\"time\":\"soon\","),
            "t.jsonl:3: \"record.time\" is not a whole number"
        ),
        (#"{"schema":1,"time":1}"#, "t.jsonl:3: a bare decision record: missing \"record\""),
    ])
    func badLinesNameTheFileTheLineAndTheField(text: String, message: String) {
        let error = #expect(throws: FitInputError.self) { _ = try FitRecord.parse(line: text, file: "t.jsonl", line: 3) }
        #expect(error.map { "\($0)".hasPrefix(message) } == true, "\(String(describing: error))")
    }

    @Test func anInstallsRecordsMustBeInTimeOrder() throws {
        var fit = RecordFit()
        try fit.add(line(time: 200, event: "app_launch"))
        #expect(throws: FitInputError.self) { try fit.add(line(time: 100, event: "app_foreground"), file: "t.jsonl", line: 2) }
    }

    /// Each line is the documented record, unchanged, under `record`, with the logger's ids: the
    /// same encoder as `permit run --format json`, every key present.
    @Test func simulatedRecordsAreTheDocumentedRecordWrapped() async throws {
        let model = try UserModel.parse(Self.truth, file: "truth.yaml")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let log = try RecordLog(destination: file)
        let result = await Simulation.run(
            policies: [try Self.askingPolicy()], model: model, options: SimulationOptions(users: 20, days: 3, seed: 2, workers: 1),
            records: log)
        try log.finish(policies: 1, users: 20)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == result.policies[0].events)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first.keys.sorted() == LoggedRecord.fieldNames)
        let record = try #require(first["record"] as? [String: Any])
        #expect(record.keys.sorted() == DecisionRecord.fieldNames.sorted())
        #expect(first["install"] as? String == "sim-2-0" && first["user"] as? String == "sim-2-0")
    }

    /// The same records for a seed whatever the number of workers, and none built without a log.
    @Test func recordsAreTheSameWhateverTheWorkers() async throws {
        let model = try UserModel.parse(Self.truth, file: "truth.yaml")
        var texts: [String] = []
        for workers in [1, 3] {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("permit-fit-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: file) }
            let log = try RecordLog(destination: file)
            _ = await Simulation.run(
                policies: [try Self.askingPolicy()], model: model,
                options: SimulationOptions(users: 600, days: 2, seed: 9, workers: workers), records: log)
            try log.finish(policies: 1, users: 600)
            texts.append(try String(contentsOf: file, encoding: .utf8))
        }
        #expect(texts[0] == texts[1])
        #expect(texts[0].contains("\"install\":\"sim-9-599\""))
    }
}
