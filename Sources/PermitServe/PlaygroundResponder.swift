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
        let path = request.uri.path
        if request.method == .get, path == "/" || path == "/index.html" {
            return Self.text(PlaygroundPage.html, type: "text/html; charset=utf-8")
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

    static func text(_ text: String, type: String) -> Response {
        var response = bytes(Data(text.utf8), type: type)
        // The page runs only its own script and style, and talks only to this server.
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
            + "img-src 'self' data:; frame-src 'self' data: blob:; frame-ancestors 'none'"
        return response
    }

    static func bytes(_ data: Data, type: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
