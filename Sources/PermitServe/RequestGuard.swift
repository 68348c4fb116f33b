import Foundation

/// The playground's rules for every request, before any work: who may talk to it and how much.
///
/// - Host: the server listens on 127.0.0.1 only, but a web page elsewhere can point a name it
///   owns at 127.0.0.1 (DNS rebinding) and then talk to the server as its own origin. The
///   browser still sends that name in `Host`, so a request whose `Host` is not exactly the
///   `127.0.0.1:PORT` printed is refused.
/// - Token: each launch draws a random token, printed in the URL. Every API request (those that
///   read the pack, and those that change anything: save, run, compare, upload) must carry it
///   in the `X-Permit-Token` header. A header, not a cookie: a browser attaches cookies to
///   requests other sites make (cross-site request forgery), but a custom header can only be
///   set by a page of the server's own origin (another origin needs a CORS preflight, which
///   this server never grants). The page itself (`/`) carries no secret and needs no token;
///   its script reads the token from its own URL.
/// - Origin: a browser names the page that makes a request in `Origin` (every cross-origin
///   request, and the page's own POSTs). A request naming any origin but the server's own is
///   refused even when it carries the right Host and token, so that a token that leaked (a
///   screenshot, a shell history) is still no use to another site's page.
/// - Size: a body longer than the cap is refused before it is read (Content-Length) or while it
///   is read (a chunked body stops at the cap).
public struct RequestGuard: Sendable {
    /// The per-launch secret.
    public let token: String
    /// The most bytes a request body may have.
    public let bodyCap: Int
    /// The most bytes an uploaded bundle may have.
    public let uploadCap: Int

    /// The header that carries the token.
    public static let tokenHeader = "X-Permit-Token"

    /// A guard with a fresh random token (32 bytes from the system's generator, in hex).
    public init(token: String? = nil, bodyCap: Int = 1 << 20, uploadCap: Int = 5 << 20) {
        self.token = token ?? Self.randomToken()
        self.bodyCap = bodyCap
        self.uploadCap = uploadCap
    }

    /// 32 random bytes in hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// A refused request: the HTTP status and why.
    public struct Refusal: Error, Sendable, Equatable {
        /// 400, 403, 413.
        public let status: Int
        /// Why, for the page and the log.
        public let message: String
    }

    /// Refuses a request whose `Host` is not `127.0.0.1:port` (nil when the port is not yet known).
    public func checkHost(_ host: String?, port: Int?) -> Refusal? {
        guard let port else { return Refusal(status: 503, message: "the server is starting") }
        guard let host, host == "127.0.0.1:\(port)" else {
            return Refusal(
                status: 403,
                message:
                    "refused: Host \(host.map { "\"\($0)\"" } ?? "missing") is not 127.0.0.1:\(port); open the URL permit serve printed")
        }
        return nil
    }

    /// Refuses a request made by a page of another origin: an `Origin` header, when there is
    /// one, must be exactly `http://127.0.0.1:port` (`null`, sent by sandboxed frames and local
    /// files, is refused too). A request without `Origin` (the address bar, a same-origin GET,
    /// a command-line client) passes: the Host check and the token cover it.
    public func checkOrigin(_ origin: String?, port: Int) -> Refusal? {
        guard let origin, origin != "http://127.0.0.1:\(port)" else { return nil }
        return Refusal(
            status: 403,
            message: "refused: a page of another origin (\(origin)) may not call the playground; open the URL permit serve printed")
    }

    /// Refuses an API request without the right token (compared in constant time).
    public func checkToken(_ given: String?) -> Refusal? {
        guard let given, Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            return Refusal(
                status: 403,
                message: "refused: the request lacks the token of this launch (open the URL permit serve printed, with its ?token=)")
        }
        return nil
    }

    /// Refuses a body announced longer than `cap`.
    public func checkLength(_ contentLength: String?, cap: Int) -> Refusal? {
        guard let contentLength, let length = Int(contentLength) else { return nil }
        return length > cap ? tooLarge(cap) : nil
    }

    /// The refusal of a body over `cap` bytes.
    public func tooLarge(_ cap: Int) -> Refusal {
        Refusal(status: 413, message: "refused: the request body is over \(cap) bytes")
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
