import Foundation
import PermitCore
import PermitServe

extension BenchCommand {
    /// `permit bench PACK --playground`: the time from an edit of policy.lua to the Tests
    /// panel's results, each edit new (a comment with its number), so every run copies the
    /// pack and runs all of its scenarios against the edited text, as `permit serve` does.
    /// The HTTP hop on loopback is not in it: the page's request adds its round trip.
    func runPlayground() async throws {
        let folder = Terminal.file(policy).standardizedFileURL
        let playground: Playground
        do {
            playground = try Playground(pack: folder, limits: limitOptions.limits)
        } catch {
            Terminal.printError("\(policy): \(error)")
            throw Exit.badInput
        }
        defer { Task { await playground.close() } }
        let source = try String(contentsOf: folder.appendingPathComponent("policy.lua"), encoding: .utf8)
        let runs = iterations == 100_000 ? 20 : iterations
        var samples: [Double] = []
        var scenarios = 0
        // One run first, unmeasured: the first copy and load warm the file system's caches.
        for index in 0...runs {
            let edited = source + "\n-- edit \(index)\n"
            let start = DecisionTiming.now()
            let report = try await playground.tests(["policy.lua": edited])
            if index > 0 { samples.append((DecisionTiming.now() - start) / 1e6) }
            scenarios = report.scenarios.count
        }
        let stats = DecisionTiming.Stats(samples: samples)
        if format == .json {
            let value: PolicyValue = .table([
                "min_ms": .number(stats.min), "median_ms": .number(stats.median), "max_ms": .number(samples.max() ?? 0),
                "edits": .integer(Int64(runs)), "scenarios": .integer(Int64(scenarios)),
            ])
            Terminal.say(value.prettyJSON)
        } else {
            Terminal.say(
                String(
                    format: "playground %@: edit to test results, %d scenarios, %d edits: min %.1f ms  median %.1f ms  max %.1f ms",
                    playground.folder.name, scenarios, runs, stats.min, stats.median, samples.max() ?? 0))
        }
    }
}
