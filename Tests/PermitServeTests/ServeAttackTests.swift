import Foundation
import PermitServe
import PermitTestSupport
import Testing

/// What a page of another site, a leaked token or a crafted upload could try against the
/// playground, over real HTTP on loopback, each answered by the rule that stops it.
@Suite("permit serve: an attacker's requests", .serialized)
struct ServeAttackTests {
    /// A path that climbs from the pack's copy to `target`, an absolute path.
    static func climbing(to target: URL) -> String {
        String(repeating: "../", count: 40) + target.path.drop { $0 == "/" }
    }

    @Test func aPageOfAnotherOriginIsRefusedEvenWithTheHostAndToken() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let saved = served.policyText
        // A save that would go through: the right Host, token and version.
        let save = try JSONSerialization.data(withJSONObject: [
            "path": "policy.lua", "text": "-- written by another site\n", "base": PackFolder.version(of: Data(saved.utf8)),
        ])
        for origin in ["http://attacker.example", "http://127.0.0.1:1", "null", "http://localhost:\(served.port)"] {
            let answer = try await RawHTTP.request(
                port: served.port, method: "POST", path: "/api/save", host: served.host,
                headers: [("X-Permit-Token", served.token), ("Content-Type", "application/json"), ("Origin", origin)], body: save)
            #expect(answer.status == 403, "Origin \(origin)")
            #expect(answer.text.contains("another origin"), "Origin \(origin)")
        }
        #expect(served.policyText == saved)
        // The page's own origin, as a browser sends it on the page's calls, is served.
        let own = try await RawHTTP.request(
            port: served.port, path: "/api/pack", host: served.host,
            headers: [("X-Permit-Token", served.token), ("Origin", "http://127.0.0.1:\(served.port)")])
        #expect(own.status == 200)
    }

    @Test func everyAnswerSaysWhatItIsAndHandsTheTokenToNoOne() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let page = try await RawHTTP.request(port: served.port, path: "/", host: served.host)
        let script = try await RawHTTP.request(port: served.port, path: "/playground.js", host: served.host)
        let answers: [(String, RawHTTP.Answer, String)] = [
            ("the page", page, "text/html; charset=utf-8"),
            ("the script", script, "text/javascript; charset=utf-8"),
            ("an API call", try await served.api("/api/pack"), "application/json"),
            (
                "a call without the token", try await RawHTTP.request(port: served.port, path: "/api/pack", host: served.host),
                "application/json"
            ),
            (
                "another Host", try await RawHTTP.request(port: served.port, path: "/", host: "attacker.example:\(served.port)"),
                "application/json"
            ),
            ("no such page", try await RawHTTP.request(port: served.port, path: "/nothing", host: served.host), "application/json"),
        ]
        for (name, answer, type) in answers {
            #expect(answer.headers["content-type"] == type, "\(name)")
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(name)")
            // The page's URL holds the token: no answer lets a browser send it on as a Referer.
            #expect(answer.headers["referrer-policy"] == "no-referrer", "\(name)")
        }
        #expect(page.text.contains("<meta name=\"referrer\" content=\"no-referrer\">"))
        // Only the server's own script runs: none inline, so text that reached the markup cannot.
        let policy = (page.headers["content-security-policy"] ?? "").split(separator: ";").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(policy.contains("script-src 'self'"), "\(policy)")
        #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"), "\(policy)")
        #expect(!page.text.contains("<script>"))
        #expect(page.text.contains("<script src=\"/playground.js\"></script>"))
        #expect(script.text.contains("X-Permit-Token"))
        // The comparison's report is HTML made from the policy and the model: a sandboxed frame,
        // with no script and an origin of its own.
        #expect(page.text.contains("<iframe id=\"cmp-report\" title=\"Comparison report\" sandbox hidden>"))
    }

    @Test func anEditedPathOutsideThePackIsNeverWrittenNorRead() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("permit-serve-escape-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: target) }
        // Every call that evaluates edits writes them into a copy of the pack: a name that
        // climbs out of it is refused before anything is written.
        let edits = ["files": [Self.climbing(to: target): "written by the page"]]
        for call in ["/api/tests", "/api/copy", "/api/bundle", "/api/timeline"] {
            let answer = try await served.api(call, edits)
            #expect(answer.status == 400, "\(call): \(answer.text)")
            #expect(answer.text.contains("could leave the pack"), "\(call): \(answer.text)")
        }
        let compare: [String: Any] = ["against": "saved", "model": "default.yaml", "users": 10, "days": 1, "sensitivity": 0]
        #expect(try await served.api("/api/compare", ["files": edits["files"]!, "compare": compare]).status == 400)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        // Reading: the diff shows a file of the pack only.
        let passwd = try await served.api("/api/diff", ["path": Self.climbing(to: URL(fileURLWithPath: "/etc/passwd")), "text": ""])
        #expect(passwd.status == 400)
        #expect(!passwd.text.contains("root:"))
        // A comparison takes a pack beside this one by name, and a model from the list.
        for (against, model) in [
            ("..", "default.yaml"), ("../\(served.pack.lastPathComponent)", "default.yaml"), ("saved", "../../x.yaml"),
        ] {
            var asked = compare
            asked["against"] = against
            asked["model"] = model
            let answer = try await served.api("/api/compare", ["compare": asked])
            #expect(answer.status == 400, "\(against) \(model)")
            #expect(answer.text.contains(against == "saved" ? "no model" : "no pack"), "\(answer.text)")
        }
    }

    @Test func anUploadHasItsOwnCapAndABundleNamesOnlyItsOwnFiles() async throws {
        #expect(RequestGuard().bodyCap == 1 << 20)
        #expect(RequestGuard().uploadCap == 5 << 20)
        let served = try await RunningPlayground(bodyCap: 64 << 10, uploadCap: 256 << 10)
        defer { Task { await served.stop() } }
        let headers = [("X-Permit-Token", served.token)]
        func post(_ path: String, _ body: Data, chunked: Bool = false) async throws -> RawHTTP.Answer {
            try await RawHTTP.request(
                port: served.port, method: "POST", path: path, host: served.host, headers: headers, body: body, chunked: chunked)
        }
        let between = Data(repeating: UInt8(ascii: " "), count: 100 << 10)
        // Over the API's cap, under the upload's: an upload is read (and is no bundle).
        let opened = try await post("/api/open", between)
        #expect(opened.status == 400, "\(opened.text)")
        #expect(opened.text.contains("not a permit bundle"))
        #expect(try await post("/api/tests", between).status == 413)
        // Over the upload's cap: refused, announced or not.
        let over = Data(repeating: UInt8(ascii: " "), count: 300 << 10)
        #expect(try await post("/api/open", over).status == 413)
        #expect(try await post("/api/open", over, chunked: true).status == 413)
        // A bundle is JSON of named files, nothing to unpack: a name outside its set is refused whole.
        let policy = Data("return {}".utf8).base64EncodedString()
        let hostile = "{\"format\":\"permit-bundle/1\",\"manifest\":\"e30=\",\"files\":{\"../policy.lua\":\"\(policy)\"}}\n"
        let refused = try await post("/api/open", Data(hostile.utf8))
        #expect(refused.status == 400)
        #expect(refused.text.contains("unexpected file"), "\(refused.text)")
    }

    @Test func aComparisonIsBoundedInSizeAndInTime() async throws {
        let served = try await RunningPlayground(comparisonTimeLimit: .seconds(1))
        defer { Task { await served.stop() } }
        let request: [String: Any] = ["against": "saved", "model": "default.yaml", "users": 500, "days": 14, "sensitivity": 0]
        for (field, value) in [("users", 0), ("users", 20_001), ("days", 0), ("days", 91), ("sensitivity", -1), ("sensitivity", 11)] {
            var asked = request
            asked[field] = value
            let answer = try await served.api("/api/compare", ["compare": asked])
            #expect(answer.status == 400, "\(field) \(value)")
            #expect(answer.text.contains(field == "sensitivity" ? "drawn models" : field), "\(answer.text)")
        }
        // The largest comparison allowed, stopped at the time limit (a second here).
        let largest: [String: Any] = ["against": "saved", "model": "default.yaml", "users": 20_000, "days": 90, "sensitivity": 10]
        let id = try #require(try await served.api("/api/compare", ["compare": largest]).json()["id"] as? Int)
        try await withTimeout { await served.playground.comparisonSettled() }
        let state = try await served.api("/api/compare/state", ["id": id]).json()
        #expect(state["state"] as? String == "failed")
        #expect((state["message"] as? String)?.contains("stopped after 1 s") == true, "\(state)")
    }
}
