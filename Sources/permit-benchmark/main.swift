// permit-benchmark: Permit against a C reference of its own, measured in the same run.
//
//   swift run -c release permit-benchmark [POLICY] [--decisions N] [--memory-decisions N]
//
// Prints the warm decision latency through the engine against the same policy driven straight
// through the Lua C API, the cold start against luaL_newstate + luaL_openlibs + load, the speed
// of `permit test` over all packs, and resident memory over many decisions.
import Foundation
import PermitBench
import PermitCore
import PermitLua
import PermitScenario

/// `--name N` options and one positional argument, read once.
struct Options {
    var decisions = 200_000
    var memoryDecisions = 1_000_000
    var policyPath = "policies/polite/policy.lua"

    init(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--"), index + 1 < arguments.count, let number = Int(arguments[index + 1]) {
                if argument == "--decisions" { decisions = number }
                if argument == "--memory-decisions" { memoryDecisions = number }
                index += 2
            } else {
                policyPath = argument
                index += 1
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let decisionCount = options.decisions
let memoryDecisions = options.memoryDecisions
let policyPath = options.policyPath

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("permit-benchmark: \(message)\n".utf8))
    exit(2)
}

guard let source = try? String(contentsOfFile: policyPath, encoding: .utf8) else { fail("cannot read \(policyPath)") }
let policy: LuaPolicy
do { policy = try LuaPolicy(source: source, chunkName: policyPath) } catch { fail("\(error)") }

func format(_ stats: LatencyStats) -> String {
    String(format: "min %6.0f  median %6.0f  p99 %7.0f ns  (%.0f/s)", stats.minNanoseconds, stats.medianNanoseconds, stats.p99Nanoseconds, stats.perSecond)
}

#if DEBUG
print("warning: a debug build; run `swift run -c release permit-benchmark` for real figures\n")
#endif
print("policy: \(policyPath); \(ProcessInfo.processInfo.activeProcessorCount) cores")

do {
    // Interleave Swift and C rounds so both see the same machine state.
    var ours: [LatencyStats] = [], theirs: [LatencyStats] = []
    for _ in 0..<3 {
        theirs.append(try Bench.referenceDecisions(source: source, iterations: decisionCount / 3))
        ours.append(try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: decisionCount / 3).stats)
    }
    let our = ours.min { $0.medianNanoseconds < $1.medianNanoseconds }!
    let their = theirs.min { $0.medianNanoseconds < $1.medianNanoseconds }!
    print("\nwarm decision (best of 3 rounds of \(decisionCount / 3))")
    print("  permit engine   \(format(our))")
    print("  C reference     \(format(their))")
    print(String(format: "  ratio           %.2f× the C reference median (goal ≤ 1.5×)", our.medianNanoseconds / their.medianNanoseconds))

    let cold = try Bench.coldStarts(source: source, chunkName: policyPath, iterations: 2000)
    let referenceCold = try Bench.referenceColdStarts(source: source, iterations: 2000)
    print("\ncold start (median of 2000)")
    print(String(format: "  sandboxed VM + load + validate   %.1f µs", cold.medianNanoseconds / 1000))
    print(String(format: "  luaL_newstate + openlibs + load  %.1f µs", referenceCold.medianNanoseconds / 1000))
    print(String(format: "  ratio                            %.2f× (goal ≤ 2×)", cold.medianNanoseconds / referenceCold.medianNanoseconds))

    if FileManager.default.fileExists(atPath: "policies") {
        let files = try Discovery.scenarios(under: ["policies"])
        let start = DispatchTime.now().uptimeNanoseconds
        let run = await TestRun.run(files, filter: nil) { url throws(PolicyError) in
            try LuaPolicy.load(contentsOf: url)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let steps = run.reports.reduce(0) { total, report in
            if case .ran(let result) = report.verdict { return total + result.steps.count }
            return total
        }
        print(String(format: "\npermit test policies: %d scenarios, %d steps in %.3f s = %.0f steps/s (%d passed)",
                     run.reports.count, steps, seconds, Double(steps) / seconds, run.passedCount))
    }

    print("\nmemory over \(memoryDecisions) decisions")
    _ = try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: 50_000)
    let before = Bench.residentKiB()
    _ = try await Bench.decisions(policy: policy, events: Bench.defaultEvents, iterations: memoryDecisions)
    let after = Bench.residentKiB()
    print("  resident after warm-up \(before) KiB, after the run \(after) KiB: grew \(after - before) KiB (goal < 1024)")
    print("  VM memory \(policy.memoryInUse / 1024) KiB")
} catch {
    fail("\(error)")
}
