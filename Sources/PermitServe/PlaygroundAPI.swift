import Foundation
import Hummingbird

/// The API the page calls, after the guard's checks: each path, its JSON request, its answer.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct PlaygroundAPI {
    let playground: Playground

    /// An answer other than 200 with its message.
    struct Failure: Error {
        let status: Int
        let message: String
    }

    /// The page's unsaved text, with what each call adds.
    struct Edited: Decodable {
        /// The edited files by path; absent: none edited.
        var files: [String: String]?
        var scenario: String?
        var locale: String?
        var attempt: TryDecision?
        var compare: ComparisonRequest?
    }

    /// A save, or the difference a save would make.
    struct SaveRequest: Decodable {
        var path: String
        var text: String
        var base: String?
    }

    /// A comparison's id.
    struct JobRequest: Decodable {
        var id: Int
    }

    func handle(method: String, path: String, body: Data) async throws -> Response {
        if method == "GET", path == "/api/pack" { return PlaygroundResponder.json(try playground.info()) }
        guard method == "POST" else { throw Failure(status: 405, message: "\(method) \(path): the API takes POST") }
        switch path {
        case "/api/tests":
            return PlaygroundResponder.json(try await playground.tests(try decode(Edited.self, body).files ?? [:]))
        case "/api/timeline":
            let request = try decode(Edited.self, body)
            return PlaygroundResponder.json(
                try await playground.timeline(request.files ?? [:], scenario: request.scenario ?? "", locale: request.locale))
        case "/api/decide":
            let request = try decode(Edited.self, body)
            guard let attempt = request.attempt else { throw Failure(status: 400, message: "no decision asked for") }
            return PlaygroundResponder.json(try await playground.decide(request.files ?? [:], attempt))
        case "/api/copy":
            return PlaygroundResponder.json(try await playground.copy(try decode(Edited.self, body).files ?? [:]))
        case "/api/diff":
            let request = try decode(SaveRequest.self, body)
            return PlaygroundResponder.json(["diff": try playground.diff(path: request.path, text: request.text)])
        case "/api/save":
            return try save(try decode(SaveRequest.self, body))
        case "/api/compare":
            let request = try decode(Edited.self, body)
            guard let compare = request.compare else { throw Failure(status: 400, message: "no comparison asked for") }
            return PlaygroundResponder.json(try await playground.compare(request.files ?? [:], compare))
        case "/api/compare/state", "/api/compare/cancel":
            let id = try decode(JobRequest.self, body).id
            let state = path.hasSuffix("cancel") ? await playground.cancelComparison(id) : await playground.comparison(id)
            guard let state else { throw Failure(status: 404, message: "no comparison \(id)") }
            return PlaygroundResponder.json(state)
        case "/api/bundle":
            let download = try await playground.bundle(try decode(Edited.self, body).files ?? [:])
            return PlaygroundResponder.bytes(
                download.data, type: "application/octet-stream",
                headers: [.contentDisposition: "attachment; filename=\"\(download.fileName)\""])
        case "/api/open":
            return PlaygroundResponder.json(["files": try playground.open(bundle: body)])
        default:
            throw Failure(status: 404, message: "no such call: \(path)")
        }
    }

    func save(_ request: SaveRequest) throws -> Response {
        guard let base = request.base else { throw Failure(status: 400, message: "a save names the version it replaces") }
        switch try playground.save(path: request.path, text: request.text, base: base) {
        case .saved(let version):
            return PlaygroundResponder.json(["version": version])
        case .stale(let disk):
            var answer = [
                "error":
                    "\(request.path) changed on disk since it was opened; nothing was saved. Reload it to see the change (your edit is lost unless you copy it first), or keep editing.",
                "stale": "true",
            ]
            answer["diskVersion"] = disk ?? "missing"
            return PlaygroundResponder.json(answer, status: .conflict)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T {
        try JSONDecoder().decode(type, from: body.isEmpty ? Data("{}".utf8) : body)
    }
}
