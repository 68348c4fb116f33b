import Foundation
import PermitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (a free port), for the fetcher's tests: it reads each
/// request's head, records it, and answers what the test's handler scripts, including the
/// misbehaviours a fetcher must survive (a slow answer, a body cut short, a huge body).
/// One thread accepts, one thread serves each connection; every response closes its connection.
/// The threads hold the server until `stop()`: a test stops it when done (`defer`).
final class TestHTTPServer: Sendable {
    /// A request as the server read it (header names in lower case).
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
    }

    /// What to answer.
    indirect enum Reply: Sendable {
        /// A complete response; Content-Length is added.
        case send(status: Int, headers: [String: String] = [:], body: Data = Data())
        /// The reply, after `seconds` without sending anything.
        case delayed(seconds: TimeInterval, Reply)
        /// A 200 whose Content-Length says `declared` but whose connection closes after `body`.
        case truncated(body: Data, declared: Int)
        /// A 200 of `total` bytes, with or without a Content-Length (without: the body ends
        /// when the connection closes), sent in 16 KiB pieces 2 ms apart (8 MiB a second, as a
        /// network would, where loopback would hand the client everything before it could stop).
        case huge(total: Int, declaresLength: Bool)
    }

    private struct State {
        var requests: [Request] = []
        /// Body bytes the server managed to send, per path.
        var bodyBytesSent: [String: Int] = [:]
        var stopped = false
    }

    /// The port the server listens on.
    let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let state = Locked(State())

    /// Listens on 127.0.0.1 at a port the system picks, and starts accepting.
    init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ServerError("bind or listen on 127.0.0.1: \(reason)")
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The requests read so far, oldest first.
    var requests: [Request] { state.withLock { $0.requests } }

    /// The body bytes sent so far for `path`.
    func bodyBytesSent(_ path: String) -> Int { state.withLock { $0.bodyBytesSent[path] ?? 0 } }

    /// Stops accepting (connections being served finish on their own).
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR, !stopped { continue }
                return
            }
            #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            Thread.detachNewThread { [self] in
                serve(client)
                close(client)
            }
        }
    }

    private func serve(_ client: Int32) {
        guard let request = readRequest(client) else { return }
        state.withLock { $0.requests.append(request) }
        answer(handler(request), to: request, on: client)
    }

    private func answer(_ reply: Reply, to request: Request, on client: Int32) {
        switch reply {
        case .send(let status, let headers, let body):
            var fields = headers
            fields["Content-Length"] = String(body.count)
            guard send(head(status, fields), to: client) else { return }
            countSent(body.count, path: request.path, sent: send(body, to: client))
        case .delayed(let seconds, let reply):
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !stopped { usleep(20_000) }
            answer(reply, to: request, on: client)
        case .truncated(let body, let declared):
            guard send(head(200, ["Content-Length": String(declared)]), to: client) else { return }
            countSent(body.count, path: request.path, sent: send(body, to: client))
        case .huge(let total, let declaresLength):
            guard send(head(200, declaresLength ? ["Content-Length": String(total)] : [:]), to: client) else { return }
            let piece = Data(repeating: UInt8(ascii: "x"), count: 16 << 10)
            var sent = 0
            while sent < total, send(piece.prefix(total - sent), to: client) {
                sent += min(piece.count, total - sent)
                state.withLock { $0.bodyBytesSent[request.path] = sent }
                usleep(2_000)
            }
        }
    }

    private func countSent(_ count: Int, path: String, sent: Bool) {
        if sent { state.withLock { $0.bodyBytesSent[path, default: 0] += count } }
    }

    private func head(_ status: Int, _ headers: [String: String]) -> Data {
        let reasons = [200: "OK", 302: "Found", 304: "Not Modified", 404: "Not Found", 500: "Internal Server Error"]
        var text = "HTTP/1.1 \(status) \(reasons[status] ?? "Status")\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Data(text.utf8)
    }

    /// Reads up to the blank line that ends the head (a GET has no body).
    private func readRequest(_ client: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0, bytes.count + count <= 64 << 10 else { return nil }
            bytes += buffer[0..<count]
            if let range = bytes.firstRange(of: end) {
                bytes = Array(bytes[..<range.upperBound])
                break
            }
        }
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Request(method: String(parts[0]), path: String(parts[1]), headers: headers)
    }

    /// Sends all of `data`; `false` when the client has gone.
    private func send(_ data: Data, to client: Int32) -> Bool {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.send(client, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let written = Darwin.send(client, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
