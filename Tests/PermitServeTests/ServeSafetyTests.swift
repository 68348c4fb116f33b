import Foundation
import PermitServe
import PermitTestSupport
import Testing

/// The playground's safety rules over real HTTP on loopback: each request is sent byte for
/// byte (RawHTTP), so the Host header, the token and the body are exactly what an attacker's
/// page or a rebinding DNS name would send.
@Suite("permit serve: safety", .serialized)
struct ServeSafetyTests {
    @Test func aHostOtherThanThePrintedLoopbackAddressIsRefused() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let token = [("X-Permit-Token", served.token)]
        for host in ["attacker.example:\(served.port)", "localhost:\(served.port)", "127.0.0.1:1", "127.0.0.1", nil] {
            let page = try await RawHTTP.request(port: served.port, path: "/", host: host)
            #expect(page.status == 403, "Host \(host ?? "none")")
            let api = try await RawHTTP.request(port: served.port, path: "/api/pack", host: host, headers: token)
            #expect(api.status == 403, "Host \(host ?? "none")")
            #expect(api.text.contains("is not 127.0.0.1:\(served.port)"))
        }
        let page = try await RawHTTP.request(port: served.port, path: "/", host: served.host)
        #expect(page.status == 200)
        #expect(page.text.contains("Permit playground"))
        #expect(try await RawHTTP.request(port: served.port, path: "/api/pack", host: served.host, headers: token).status == 200)
    }

    @Test func theAPIWantsTheLaunchsTokenInAHeader() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let save = try JSONSerialization.data(withJSONObject: ["path": "policy.lua", "text": "x", "base": "0"])
        let wrong = String(served.token.reversed())
        let attempts: [[(String, String)]] = [
            [], [("X-Permit-Token", wrong)], [("X-Permit-Token", "")],
            // A cookie is what a cross-site request would carry; it is not the header.
            [("Cookie", "token=\(served.token)")],
        ]
        for headers in attempts {
            for (method, path, body) in [("GET", "/api/pack", nil), ("POST", "/api/save", save), ("POST", "/api/tests", Data("{}".utf8))] {
                let answer = try await RawHTTP.request(
                    port: served.port, method: method, path: path, host: served.host, headers: headers, body: body)
                #expect(answer.status == 403, "\(method) \(path) with \(headers)")
                #expect(answer.text.contains("lacks the token"))
            }
        }
        #expect(served.policyText != "x")
        let right = try await served.api("/api/pack")
        #expect(right.status == 200)
        #expect((try right.json()["name"] as? String) == "polite")
    }

    @Test func aBodyOverTheCapIsRefused() async throws {
        let served = try await RunningPlayground(bodyCap: 64 << 10)
        defer { Task { await served.stop() } }
        let headers = [("X-Permit-Token", served.token), ("Content-Type", "application/json")]
        let big = Data(("{\"files\": {\"policy.lua\": \"" + String(repeating: "-", count: 100 << 10) + "\"}}").utf8)
        // Announced too long: refused before it is read.
        let announced = try await RawHTTP.request(
            port: served.port, method: "POST", path: "/api/tests", host: served.host, headers: headers, body: big)
        #expect(announced.status == 413)
        // Announced too long and never sent: refused from the header alone, nothing read.
        let unsent = try await RawHTTP.request(
            port: served.port, method: "POST", path: "/api/tests", host: served.host,
            headers: headers + [("Content-Length", String(100 << 20))])
        #expect(unsent.status == 413)
        // Sent in chunks with no length: refused once the cap is passed.
        let chunked = try await RawHTTP.request(
            port: served.port, method: "POST", path: "/api/tests", host: served.host, headers: headers, body: big, chunked: true)
        #expect(chunked.status == 413)
        #expect(chunked.text.contains("over \(64 << 10) bytes"))
        // Under the cap it is served.
        let small = try await served.api("/api/tests", ["files": [String: String]()])
        #expect(small.status == 200)
    }

    @Test func aSaveOutsideThePacksEditableFilesIsRefused() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let outside = served.pack.deletingLastPathComponent().appendingPathComponent("outside.yaml")
        try "kept".write(to: outside, atomically: true, encoding: .utf8)
        // copy/ as a link to the folder above: copy/outside.yaml would land outside the pack.
        try FileManager.default.createSymbolicLink(
            at: served.pack.appendingPathComponent("copy"), withDestinationURL: outside.deletingLastPathComponent())
        for path in [
            "../outside.yaml", "/etc/passwd", "copy/../../outside.yaml", "tests/../policy.lua", "copy/outside.yaml", "README.md", "",
        ] {
            let answer = try await served.api("/api/save", ["path": path, "text": "overwritten", "base": "x"])
            #expect(answer.status == 400, "\(path)")
        }
        #expect(try String(contentsOf: outside, encoding: .utf8) == "kept")
        // An absolute path is refused as such, before any other rule looks at its parts.
        let absolute = try await served.api("/api/save", ["path": "/etc/passwd", "text": "overwritten", "base": "x"])
        #expect(absolute.text.contains("not a path inside the pack"), "\(absolute.text)")
        // A policy.lua that is itself a link is refused too.
        let policy = served.pack.appendingPathComponent("policy.lua")
        let real = served.pack.appendingPathComponent("real.lua")
        try FileManager.default.moveItem(at: policy, to: real)
        try FileManager.default.createSymbolicLink(at: policy, withDestinationURL: real)
        let linked = try await served.api("/api/save", ["path": "policy.lua", "text": "overwritten", "base": "x"])
        #expect(linked.status == 400)
        #expect(linked.text.contains("symbolic link"))
        #expect(try String(contentsOf: real, encoding: .utf8) != "overwritten")
    }

    @Test func aSaveOverAFileChangedOnDiskIsRefused() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let info = try await served.api("/api/pack").json()
        let files = try #require(info["files"] as? [[String: Any]])
        let opened = try #require(files.first { $0["path"] as? String == "policy.lua" })
        let version = try #require(opened["version"] as? String)
        let original = try #require(opened["text"] as? String)
        // Another editor changes the file after the page opened it.
        let other = original + "\n-- changed on disk\n"
        try other.write(to: served.pack.appendingPathComponent("policy.lua"), atomically: true, encoding: .utf8)
        let stale = try await served.api("/api/save", ["path": "policy.lua", "text": original + "\n-- from the page\n", "base": version])
        #expect(stale.status == 409)
        #expect(stale.text.contains("changed on disk"))
        #expect(served.policyText == other)
        // After a reload (the new version), the save goes through, whole.
        let reloaded = try #require(
            (try await served.api("/api/pack").json()["files"] as? [[String: Any]])?.first { $0["path"] as? String == "policy.lua" })
        #expect(reloaded["text"] as? String == other)
        let saved = try await served.api(
            "/api/save", ["path": "policy.lua", "text": other + "-- from the page\n", "base": reloaded["version"] as! String])
        #expect(saved.status == 200)
        #expect(served.policyText == other + "-- from the page\n")
        // The diff shown before a save is against the disk.
        let diff = try await served.api("/api/diff", ["path": "policy.lua", "text": served.policyText + "-- more\n"]).json()
        #expect((diff["diff"] as? String)?.contains("+-- more") == true)
    }

    @Test func unknownPathsAndMethodsAreNotServed() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        #expect(try await RawHTTP.request(port: served.port, path: "/etc/passwd", host: served.host).status == 404)
        #expect(try await served.api("/api/nothing", [:]).status == 404)
        let timeline = try await served.api("/api/timeline", ["scenario": "../../etc/passwd::x"]).json()
        #expect((timeline["problem"] as? String)?.contains("no scenario") == true)
    }
}
