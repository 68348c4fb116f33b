import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitDelivery

/// The launch guard across real process deaths: a child process (`permit-launch-child`, an
/// app's process) is killed with SIGKILL while a delivered policy loads or decides, as iOS's
/// watchdog would kill it, and launched again.
@Suite struct LaunchGuardTests {
    static let child = builtExecutable(named: "permit-launch-child")

    /// A policy whose main chunk never ends (under the child's minute-long limits).
    static let endlessLoad = """
        while true do end
        return { name = "endless", decide = function(ctx) return { action = "none" } end }
        """

    /// A policy that loads at once and whose `decide` never ends.
    static let endlessDecide = """
        return { name = "stuck", decide = function(ctx) while true do end end }
        """

    @Test func aBundleThatDiesMidInstallIsSetAsideAndTheLastGoodServes() async throws {
        let directory = temporaryDirectory()
        let good = try write(bundle(1, taggedPolicy("v1")), in: directory, as: "v1.permitbundle")
        let endless = try write(bundle(2, Self.endlessLoad), in: directory, as: "v2.permitbundle")
        let store = directory.appendingPathComponent("store")

        let installed = try await runProcess(Self.child, [store.path, "install", good.path], limit: 120)
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")

        try killMidWay(["install", endless.path], store: store, after: "installing")

        let relaunched = try await runProcess(Self.child, [store.path, "open"], limit: 120)
        #expect(relaunched.status == 0, "\(relaunched.stderr)")
        let output = relaunched.stdout
        #expect(output.contains("serving: bundle demo version 1"), "\(output)")
        #expect(output.contains("set aside: version 2: the app's process ended while bundle version 2 was being installed"), "\(output)")
        #expect(output.contains("event: set_aside:"), "\(output)")
        #expect(output.contains("decision: v1"), "\(output)")

        // The version stays revoked at the next launch: it is never installed again.
        let again = try await runProcess(Self.child, [store.path, "install", endless.path], limit: 120)
        #expect(again.status == 1 && again.stdout.contains("revoked"), "\(again.stdout)")
    }

    @Test func aBundleThatDiesDecidingAtLaunchIsSetAsideForItsFallback() async throws {
        let directory = temporaryDirectory()
        let good = try write(bundle(1, taggedPolicy("v1")), in: directory, as: "v1.permitbundle")
        let stuck = try write(bundle(3, Self.endlessDecide), in: directory, as: "v3.permitbundle")
        let store = directory.appendingPathComponent("store")
        for file in [good, stuck] {
            let installed = try await runProcess(Self.child, [store.path, "install", file.path], limit: 120)
            #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        }

        try killMidWay(["decide"], store: store, after: "deciding")

        let relaunched = try await runProcess(Self.child, [store.path, "open"], limit: 120)
        let output = relaunched.stdout
        #expect(output.contains("set aside: version 3: the app's process ended while bundle version 3 was deciding"), "\(output)")
        #expect(output.contains("serving: bundle demo version 1"), "\(output)")
        #expect(output.contains("decision: v1"), "\(output)")

        // Recorded in the store: the launch after that one still shows why.
        let later = try await runProcess(Self.child, [store.path, "open"], limit: 120)
        #expect(later.stdout.contains("set aside: version 3"), "\(later.stdout)")
        #expect(!later.stdout.contains("event: set_aside:"), "set aside once, not at every launch: \(later.stdout)")
    }

    /// Launches the child, waits until it prints `marker` (it is then inside the policy's
    /// work), lets it run a little longer and kills it with SIGKILL.
    private func killMidWay(_ arguments: [String], store: URL, after marker: String) throws {
        let process = Process()
        process.executableURL = Self.child
        process.arguments = [store.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = ""
        let handle = output.fileHandleForReading
        while !seen.contains(marker) {
            let data = handle.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        #expect(seen.contains(marker), "the child ended before \(marker): \(seen)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(process.isRunning, "the child finished on its own: \(seen)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }

    private func write(_ data: Data, in directory: URL, as name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }
}
