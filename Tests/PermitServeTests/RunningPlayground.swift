import Foundation
import PermitCore
import PermitLua
import PermitLuaTestSupport
import PermitServe
import PermitSimulation
import PermitTestSupport

/// A playground server started in this process on a free port, for a copy of a shipped pack
/// in a scratch folder (the tests edit and save it); `stop` ends it.
final class RunningPlayground: @unchecked Sendable {
    let pack: URL
    let playground: Playground
    let server: PlaygroundServer
    let task: Task<Void, any Error>
    /// The server's own threads: in the full suite, Swift's cooperative pool and dispatch's
    /// global queues are held by other tests' CPU-bound work for minutes, and a server on
    /// either answers so late that the test's requests time out.
    let threads = JobThreads(count: 2, name: "permit.test.playground")
    let url: URL

    var port: Int { server.port! }
    var token: String { server.guardRules.token }
    var host: String { "127.0.0.1:\(port)" }

    /// Copies `policies/<name>` (or `Tests/packs/<name>`, and a sibling pack, for comparisons)
    /// and serves the copy.
    init(
        pack name: String = "polite", bodyCap: Int = 1 << 20, uploadCap: Int = 5 << 20,
        comparisonTimeLimit: Duration = ComparisonRequest.timeLimit
    ) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("permit-serve-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for copied in Set([name, "provisional-first"]) {
            let shipped = Repository.root.appendingPathComponent("policies/\(copied)")
            let source =
                FileManager.default.fileExists(atPath: shipped.path)
                ? shipped : Repository.root.appendingPathComponent("Tests/packs/\(copied)")
            try FileManager.default.copyItem(at: source, to: scratch.appendingPathComponent(copied))
        }
        pack = scratch.appendingPathComponent(name)
        let model = try String(contentsOf: Repository.root.appendingPathComponent("examples/models/default.yaml"), encoding: .utf8)
        let playground = try Playground(
            pack: pack, limits: .wideDeadline, models: [("default.yaml", model)], comparisonTimeLimit: comparisonTimeLimit)
        self.playground = playground
        let server = PlaygroundServer(
            playground: playground, port: 0, guardRules: RequestGuard(bodyCap: bodyCap, uploadCap: uploadCap))
        self.server = server
        let ready = Locked<URL?>(nil)
        task = threads.task { try await server.run { url in ready.withLock { $0 = url } } }
        _ = try await poll(for: .seconds(30), every: .milliseconds(20)) { ready.current != nil }
        guard let url = ready.current else { throw RawHTTP.Failure(description: "the server did not start") }
        self.url = url
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        threads.stop()
        try? FileManager.default.removeItem(at: pack.deletingLastPathComponent())
    }

    /// An API call with the right Host and token.
    func api(_ path: String, _ body: [String: Any]? = nil) async throws -> RawHTTP.Answer {
        try await RawHTTP.request(
            port: port, method: body == nil ? "GET" : "POST", path: path, host: host,
            headers: [("X-Permit-Token", token), ("Content-Type", "application/json")],
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
    }

    /// The pack's policy.lua as on disk.
    var policyText: String { (try? String(contentsOf: pack.appendingPathComponent("policy.lua"), encoding: .utf8)) ?? "" }
}
