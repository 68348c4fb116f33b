import Foundation
import Hummingbird
import Logging
import PermitCore

/// `permit serve`'s web server: the page and its API for one pack, on 127.0.0.1 only.
///
/// Every request passes `RequestGuard` first (Host, token, size); the API's work is
/// `Playground`'s. Hummingbird 2 serves it (HTTP/1.1 over SwiftNIO's sockets), which needs
/// macOS 14 where it runs on a Mac; Linux has no such floor.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
public final class PlaygroundServer: Sendable {
    /// The pack's playground.
    public let playground: Playground
    /// The rules every request passes.
    public let guardRules: RequestGuard
    /// The port asked for; 0 picks a free one.
    public let requestedPort: Int
    private let boundPort = PortBox()

    /// A server for `playground` on 127.0.0.1:`port` (0: any free port).
    public init(playground: Playground, port: Int = 0, guardRules: RequestGuard = RequestGuard()) {
        self.playground = playground
        self.requestedPort = port
        self.guardRules = guardRules
    }

    /// The port the server listens on, once it does.
    public var port: Int? { boundPort.value }

    /// The URL to open: `http://127.0.0.1:PORT/?token=...`.
    public var url: URL? {
        port.map { URL(string: "http://127.0.0.1:\($0)/?token=\(guardRules.token)")! }
    }

    /// Runs until the task is cancelled; `ready` is called with the URL once it listens.
    public func run(ready: @escaping @Sendable (URL) -> Void) async throws {
        var logger = Logger(label: "permit-serve")
        logger.logLevel = .critical
        let responder = PlaygroundResponder(server: self)
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: requestedPort), serverName: nil),
            onServerRunning: { [boundPort, guardRules] channel in
                guard let port = channel.localAddress?.port else { return }
                boundPort.set(port)
                ready(URL(string: "http://127.0.0.1:\(port)/?token=\(guardRules.token)")!)
            },
            logger: logger)
        defer { Task { [playground] in await playground.close() } }
        try await app.run()
    }
}

/// The port, set once the socket is bound and read by every request's Host check.
final class PortBox: Sendable {
    private let stored = Locked<Int?>(nil)
    var value: Int? { stored.current }
    func set(_ port: Int) { stored.withLock { $0 = port } }
}
