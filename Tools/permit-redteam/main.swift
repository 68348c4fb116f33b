// `make redteam`: the sandbox's attack battery. Every case must end in a clean, typed error
// (no crash, no hang) and every policy call within the time limit plus 10 %. Exits 1 otherwise.
// The cases are fixtures: attacks/battery.yaml beside this file and the files it names.
import Foundation
import PermitCore
import PermitLua

let limits = LuaLimits.default
let allowedMilliseconds = Double(limits.timeLimitMilliseconds) * 1.1
let permitBinary =
    CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("permit")
// The cases, read before anything runs: a wrong manifest ends the run at once.
let battery: [Attack]
do { battery = try Battery.load() } catch {
    print("redteam: \(error)")
    exit(2)
}

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("permit-redteam-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

print("Lua: header release \(luaHeaderRelease), runtime probe \(luaRuntimeRelease), 5.4.4 guards \(luaBugGuardsActive ? "on" : "off")")
print(
    "Limits: \(limits.timeLimitMilliseconds) ms, \(limits.instructionsPerCall) instructions, \(limits.memoryBytes >> 10) KiB, \(limits.maxTableSlots) hash slots per table; pass when every call ends within \(allowedMilliseconds) ms"
)
print("")
PackMeasurement.printAll()
print("")
CollisionMeasurement.printAll()
print("")

var failures = 0
for (index, attack) in battery.enumerated() {
    let directory = scratch.appendingPathComponent("case\(index)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let outcome = CaseRunner.run(attack, in: directory)
    if !outcome.passed { failures += 1 }
    print(outcome.line(for: attack))
}
print("")
print(
    failures == 0
        ? "redteam: all \(battery.count) cases ended in a typed error in time"
        : "redteam: \(failures) of \(battery.count) cases FAILED")
exit(failures == 0 ? 0 : 1)
