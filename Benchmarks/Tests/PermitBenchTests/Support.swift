import Foundation
import PermitSimulation

/// The repository (the root package), four levels above this file.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// A pack of policies/, as the simulation loads it.
func pack(_ name: String) throws -> SimulationPolicy {
    try SimulationPolicy.load(
        contentsOf: repositoryRoot.appendingPathComponent("policies/\(name)/policy.lua"), displayName: "\(name)/policy.lua")
}

/// What a finished `permit-benchmark` left: its exit status and both outputs.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the `permit-benchmark` this package's build left beside the test bundle, in the
/// repository root (the packs are policies/ there). Both outputs go to files, so a child
/// that writes much to one never blocks on a pipe nobody reads.
func runBenchmark(_ arguments: [String]) throws -> ProcessResult {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 where !FileManager.default.fileExists(atPath: directory.appendingPathComponent("permit-benchmark").path) {
        directory = directory.deletingLastPathComponent()
    }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("permit-benchmark-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = directory.appendingPathComponent("permit-benchmark")
    process.arguments = arguments
    process.currentDirectoryURL = repositoryRoot
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
        stderr: try String(contentsOf: err, encoding: .utf8))
}
