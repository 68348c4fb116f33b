import Foundation

/// One GET the fetcher asks of a transport.
struct HTTPRequest: Sendable {
    var url: URL
    /// Header fields to send (the conditional ones among them).
    var headers: [String: String]
    /// The longest wait for the connection or for the next bytes, in seconds.
    var requestTimeout: TimeInterval
    /// The longest the whole transfer may take, in seconds.
    var resourceTimeout: TimeInterval
    /// The most body bytes the fetcher accepts: a transport stops the transfer once the body
    /// (or its Content-Length) passes it, without waiting for the fetcher to read the events.
    var maximumBytes: Int
}

/// What a transport reports of one GET, in order: the final response's head (after
/// redirects), then its body in chunks. The stream ends when the body is complete and throws
/// when the transfer fails.
enum HTTPEvent: Sendable {
    /// The status and header fields (names in lower case).
    case head(status: Int, headers: [String: String])
    /// The next bytes of the body.
    case body(Data)
}

/// A GET in flight: its events, and a way to stop it (the fetcher stops reading a body over
/// the cap, or after its resource timeout).
struct HTTPExchange: Sendable {
    var events: AsyncThrowingStream<HTTPEvent, any Error>
    var cancel: @Sendable () -> Void
}

/// How the fetcher sends a GET: URLSession in an app (`URLSessionTransport`). The checks
/// (conditional headers, the size cap, timeouts, backoff, the interval) are the fetcher's own,
/// so they behave alike on every platform.
protocol HTTPTransport: Sendable {
    /// Starts the GET; the exchange reports it.
    func start(_ request: HTTPRequest) -> HTTPExchange
}

/// What came back of one GET, once read by `HTTPTransfer.receive`.
enum HTTPReply: Sendable, Equatable {
    /// A complete response: status, header fields (lower-case names), body (read only for 200).
    case response(status: Int, headers: [String: String], body: Data)
    /// The body was over `limit`; the transfer was stopped there.
    case tooLarge(limit: Int)
    /// No complete response: why.
    case failed(String)
}

/// Reads an exchange under the fetcher's limits: the body is read only for a 200, never past
/// `limit` bytes (a Content-Length over it stops the transfer before any byte of the body), and
/// the whole exchange ends after `resourceTimeout` whatever the transport does.
///
/// A compressed body (`Content-Encoding: gzip`, which URLSession asks for and decodes on every
/// platform) reaches the fetcher decoded, while its Content-Length counts the bytes on the wire:
/// the cap applies to the decoded bytes as they arrive (a compression bomb stops at `limit`),
/// and the declared length is only compared with a body that was not encoded. URLSession's
/// decoder itself fails a compressed body cut short.
enum HTTPTransfer {
    static func receive(_ exchange: HTTPExchange, limit: Int, resourceTimeout: TimeInterval) async -> HTTPReply {
        let reply = await withTaskGroup(of: HTTPReply?.self) { group in
            group.addTask { await read(exchange, limit: limit) }
            group.addTask {
                // Cancelled when the read finishes first.
                try? await Task.sleep(nanoseconds: UInt64(max(0, resourceTimeout) * 1e9))
                return Task.isCancelled ? nil : .failed("timed out after \(seconds(resourceTimeout)) (resourceTimeout)")
            }
            var first: HTTPReply?
            while let next = await group.next() {
                if let next {
                    first = next
                    break
                }
            }
            group.cancelAll()
            return first ?? .failed("the transfer was cancelled")
        }
        exchange.cancel()
        return reply
    }

    private static func read(_ exchange: HTTPExchange, limit: Int) async -> HTTPReply {
        var status: Int?
        var headers: [String: String] = [:]
        var declared: Int?
        var encoded = false
        var body = Data()
        do {
            for try await event in exchange.events {
                switch event {
                case .head(let code, let fields):
                    status = code
                    headers = fields
                    declared = fields["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                    encoded = isEncoded(fields["content-encoding"])
                    // Only a 200 carries a bundle: another status needs no body.
                    guard code == 200 else { return .response(status: code, headers: fields, body: Data()) }
                    if let declared, declared > limit { return .tooLarge(limit: limit) }
                case .body(let chunk):
                    guard status != nil else { return .failed("the transport sent a body before a response") }
                    if body.count + chunk.count > limit { return .tooLarge(limit: limit) }
                    body.append(chunk)
                }
            }
        } catch {
            return .failed(describe(error))
        }
        if Task.isCancelled { return .failed("the transfer was cancelled") }
        guard let status else { return .failed("the connection closed without a response") }
        if let declared, !encoded, body.count != declared {
            return .failed("the body ended after \(body.count) of its \(declared) bytes")
        }
        return .response(status: status, headers: headers, body: body)
    }

    /// Whether a `Content-Encoding` value names an encoding (its Content-Length then counts the
    /// encoded bytes, not the decoded body the transport hands over); `identity` names none.
    static func isEncoded(_ value: String?) -> Bool {
        guard let value else { return false }
        let codings = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return codings.contains { !$0.isEmpty && $0 != "identity" }
    }

    /// A transport error as a sentence (URLSession's `NSError`s have one).
    static func describe(_ error: any Error) -> String {
        let error = error as NSError
        if error.domain == NSURLErrorDomain {
            return "\(error.localizedDescription) (URL error \(error.code))"
        }
        return error.localizedDescription
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
