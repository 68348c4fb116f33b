import Foundation
import Hummingbird
import PermitCore

/// Routes each request after `RequestGuard`'s checks: `/` is the page, `/api/...` the API
/// (JSON in and out, the token required). Nothing else is served.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct PlaygroundResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let server: PlaygroundServer

    var rules: RequestGuard { server.guardRules }
    var playground: Playground { server.playground }

    func respond(to request: Request, context: Context) async throws -> Response {
        if let refusal = rules.checkHost(request.head.authority, port: server.port) {
            return Self.refuse(refusal)
        }
        if let port = server.port, let refusal = rules.checkOrigin(request.headers[.origin], port: port) {
            return Self.refuse(refusal)
        }
        let path = request.uri.path
        if request.method == .get, path == "/" || path == "/index.html" {
            return Self.page(PlaygroundPage.html)
        }
        if request.method == .get, path == PlaygroundPage.scriptPath {
            return Self.bytes(Data(PlaygroundScript.js.utf8), type: "text/javascript; charset=utf-8")
        }
        guard path.hasPrefix("/api/") else {
            return Self.json(["error": "no such page: \(path)"], status: .notFound)
        }
        if let refusal = rules.checkToken(request.headers[.init(RequestGuard.tokenHeader)!]) {
            return Self.refuse(refusal)
        }
        let cap = path == "/api/open" ? rules.uploadCap : rules.bodyCap
        if let refusal = rules.checkLength(request.headers[.contentLength], cap: cap) { return Self.refuse(refusal) }
        var body = Data()
        for try await buffer in request.body {
            body.append(contentsOf: buffer.readableBytesView)
            if body.count > cap { return Self.refuse(rules.tooLarge(cap)) }
        }
        do {
            return try await PlaygroundAPI(playground: playground).handle(method: request.method.rawValue, path: path, body: body)
        } catch let error as PlaygroundAPI.Failure {
            return Self.json(["error": error.message], status: HTTPResponse.Status(code: error.status))
        } catch let error as PackFolder.PathError {
            return Self.json(["error": error.description], status: .badRequest)
        } catch let error as DecodingError {
            return Self.json(["error": "the request is not what the page sends: \(error)"], status: .badRequest)
        } catch {
            // A policy that does not load, a model that does not parse: the input's fault, said as is.
            return Self.json(["error": "\(error)"], status: .badRequest)
        }
    }

    static func refuse(_ refusal: RequestGuard.Refusal) -> Response {
        json(["error": refusal.message], status: HTTPResponse.Status(code: refusal.status))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return bytes(data, type: "application/json", status: status)
    }

    /// The page's Content-Security-Policy: it runs only its own script, a file of this server
    /// (no inline script, so text that reached the page's markup could not run), talks only to
    /// this server, and may not be framed by another page (clickjacking).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; "
        + "img-src 'self' data:; frame-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func page(_ html: String) -> Response {
        var response = bytes(Data(html.utf8), type: "text/html; charset=utf-8")
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        return response
    }

    /// Every answer says what it is (`nosniff`: a browser never guesses a script or a page out
    /// of a JSON answer), is never cached, and sends no `Referer` onward: the page's URL holds
    /// the token, which a link followed from it would otherwise hand to another site.
    static func bytes(_ data: Data, type: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.init("Referrer-Policy")!] = "no-referrer"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
