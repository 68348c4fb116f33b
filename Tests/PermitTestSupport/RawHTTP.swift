import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 over a plain socket to 127.0.0.1, so a test controls every byte a browser or an
/// attacker's page could send: the `Host` header (which URLSession sets itself), a wrong or
/// missing token, a body sent in chunks past a cap. The WebDriver client talks to chromedriver
/// through it too: chromedriver writes its headers without a space after the colon
/// (`Content-Length:250`), which FoundationNetworking on Linux rejects ("Failed writing header").
public enum RawHTTP {
    /// An answer: status, headers (names lowercased), body.
    public struct Answer: Sendable {
        /// The status code.
        public var status: Int
        /// The headers, by lowercased name.
        public var headers: [String: String]
        /// The body, de-chunked.
        public var body: Data
        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object (empty when it is not one).
        public func json() throws -> [String: Any] {
            (try JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
        }
    }

    /// A connection or an answer that went wrong.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
        /// A failure saying `description`.
        public init(description: String) { self.description = description }
    }

    /// Sends one request and reads the answer until the server closes the connection, on a
    /// thread of its own: a blocking read on Swift's cooperative threads (two on two cores), or
    /// on dispatch's, would starve the server running in the same process. `host` nil sends no Host header;
    /// `headers` are added as given.
    public static func request(
        port: Int, method: String = "GET", path: String, host: String?, headers: [(String, String)] = [], body: Data? = nil,
        chunked: Bool = false
    ) async throws -> Answer {
        // A thread of its own, not a dispatch queue: dispatch's global queues run as many
        // threads as there are cores, and two requests blocked in a read there would hold them
        // while a server they wait for in this process waits for one of them.
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try blockingRequest(
                            port: port, method: method, path: path, host: host, headers: headers, body: body, chunked: chunked)
                    })
            }.start()
        }
    }

    static func blockingRequest(
        port: Int, method: String, path: String, host: String?, headers: [(String, String)], body: Data?, chunked: Bool
    ) throws -> Answer {
        #if os(Linux)
        let kind = Int32(SOCK_STREAM.rawValue)
        let noSignal = Int32(MSG_NOSIGNAL)
        #else
        let kind = SOCK_STREAM
        let noSignal: Int32 = 0
        #endif
        let descriptor = socket(AF_INET, kind, 0)
        guard descriptor >= 0 else { throw Failure(description: "no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to port \(port)") }
        var timeout = timeval(tv_sec: 30 * sanitizerSlowdown, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = "\(method) \(path) HTTP/1.1\r\n"
        if let host { head += "Host: \(host)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if chunked {
            head += "Transfer-Encoding: chunked\r\n"
        } else if let length = body?.count {
            head += "Content-Length: \(length)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        var bytes = Data(head.utf8)
        if let body {
            if chunked {
                var offset = 0
                while offset < body.count {
                    let piece = body[offset..<min(body.count, offset + 65_536)]
                    bytes += Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8)
                    offset += piece.count
                }
                bytes += Data("0\r\n\r\n".utf8)
            } else {
                bytes += body
            }
        }
        // The server may answer and close before the whole body is sent (a refused size):
        // a failed write is not the test's failure, the answer is what counts.
        _ = bytes.withUnsafeBytes { buffer -> Int in
            var sent = 0
            while sent < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, noSignal)
                if written <= 0 { break }
                sent += written
            }
            return sent
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        // Until the server closes, or the body its Content-Length announces is in (chromedriver
        // keeps the connection open whatever `Connection: close` asks).
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
            if let split = received.range(of: Data("\r\n\r\n".utf8)),
                let length = String(decoding: received[..<split.lowerBound], as: UTF8.self).lowercased()
                    .firstMatch(of: /content-length:\s*(\d+)/).flatMap({ Int($0.output.1) }),
                received.count - split.upperBound >= length
            {
                break
            }
        }
        return try parse(received)
    }

    static func parse(_ data: Data) throws -> Answer {
        guard let split = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no HTTP answer: \(String(decoding: data, as: UTF8.self))")
        }
        let head = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }  // "Name: value" or "Name:value"
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let line = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = line.upperBound
            guard rest.count >= size else { break }
            out += rest[start..<start + size]
            rest = rest[(start + size + 2)...]
        }
        return out
    }
}
