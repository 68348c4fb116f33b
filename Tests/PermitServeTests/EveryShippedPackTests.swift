import Foundation
import PermitCore
import PermitScenario
import PermitServe
import PermitTestSupport
import Testing

/// Every panel of the page, through the calls the page makes, on every pack in policies/ (found
/// by listing the folder, so a new pack is covered without editing this file): what a product
/// manager with only a browser does, on each pack the project ships.
@Suite("permit serve: every panel on every shipped pack", .serialized)
struct EveryShippedPackTests {
    /// The folders of policies/ that hold a policy.lua.
    static let shipped: [String] = {
        let policies = Repository.root.appendingPathComponent("policies")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: policies.path)) ?? []
        return names.sorted().filter {
            FileManager.default.fileExists(atPath: policies.appendingPathComponent("\($0)/policy.lua").path)
        }
    }()

    /// The packs the panels are tried on: every shipped one; under a sanitizer, polite and
    /// exposure-alerts (one with its texts in the policy, one with copy files, rows and pages),
    /// since every pack runs the same server code and a sanitizer build is 5 to 20 times
    /// slower; `make test` tries them all.
    static let packs: [String] = underSanitizer ? shipped.filter { ["polite", "exposure-alerts"].contains($0) } : shipped

    @Test func thePacksAreFound() {
        #expect(Self.shipped.contains("polite"))
        #expect(Self.shipped.contains("exposure-alerts"))
        #expect(Self.packs.count == (underSanitizer ? 2 : Self.shipped.count))
    }

    @Test(arguments: packs)
    func everyPanelWorks(on pack: String) async throws {
        let served = try await RunningPlayground(pack: pack)
        defer { Task { await served.stop() } }
        let files = try await Self.pageAndFiles(served)
        let tests = try await Self.testsPanel(served)
        let locales = try #require((tests["load"] as? [String: Any])?["locales"] as? [String])
        let copy = try await Self.copyTable(served, declared: locales)
        let scenarios = try #require(tests["scenarios"] as? [[String: Any]])
        for scenario in scenarios {
            try await Self.timeline(served, scenario: try #require(scenario["id"] as? String), copy: copy)
        }
        try await Self.tryIt(served, scenarios: scenarios)
        try await Self.comparison(served)
        try await Self.share(served, files: files)
    }

    /// The page, then the editor's files: policy.lua and the copy files, as on disk.
    static func pageAndFiles(_ served: RunningPlayground) async throws -> [String: String] {
        let page = try await RawHTTP.request(port: served.port, path: "/", host: served.host)
        #expect(page.status == 200)
        #expect(page.text.contains("Permit playground"))
        let info = try await served.api("/api/pack").json()
        let opened = try #require(info["files"] as? [[String: Any]])
        var files: [String: String] = [:]
        for file in opened {
            let path = try #require(file["path"] as? String)
            #expect((file["version"] as? String)?.isEmpty == false, "\(path)")
            files[path] = file["text"] as? String
        }
        let copyFolder = served.pack.appendingPathComponent("copy")
        let copyFiles = ((try? FileManager.default.contentsOfDirectory(atPath: copyFolder.path)) ?? [])
            .filter { $0.hasSuffix(".yaml") }.map { "copy/" + $0 }
        #expect(Set(files.keys) == Set(["policy.lua"] + copyFiles))
        for (path, text) in files {
            let disk = try String(contentsOf: served.pack.appendingPathComponent(path), encoding: .utf8)
            #expect(text == disk, "\(path) opens as on disk")
        }
        #expect((info["models"] as? [String])?.contains("default.yaml") == true)
        return files
    }

    /// The policy with `decide` answering `none` to every event: valid Lua, the same declared
    /// texts, and a scenario that expects anything shown fails.
    static func silenced(_ policy: String) throws -> String {
        let decide = try Regex(#"decide\s*=\s*function\s*\([^)]*\)"#)
        let found = try #require(policy.firstMatch(of: decide))
        return policy.replacingCharacters(in: found.range, with: policy[found.range] + #" do return { action = "none" } end"#)
    }

    /// Every scenario passes on the saved text; with `decide` silenced at least one fails, with
    /// `permit test`'s failure line naming the failing step's line (in the scenario file, or in
    /// a steps file it includes).
    static func testsPanel(_ served: RunningPlayground) async throws -> [String: Any] {
        let clean = try await served.api("/api/tests", ["files": [String: String]()]).json()
        #expect(((clean["load"] as? [String: Any])?["problems"] as? [Any])?.isEmpty == true, "\(clean["load"] ?? "")")
        let scenarios = try #require(clean["scenarios"] as? [[String: Any]])
        #expect(!scenarios.isEmpty)
        for scenario in scenarios {
            #expect(scenario["verdict"] as? String == "pass", "\(scenario["id"] ?? ""): \(scenario["lines"] ?? "")")
        }
        let silenced = try silenced(served.policyText)
        let run = try await served.api("/api/tests", ["files": ["policy.lua": silenced]]).json()
        #expect(((run["load"] as? [String: Any])?["problems"] as? [Any])?.isEmpty == true, "\(run["load"] ?? "")")
        let silencedRun = try #require(run["scenarios"] as? [[String: Any]])
        let failed = silencedRun.filter { $0["verdict"] as? String == "fail" }
        #expect(!failed.isEmpty, "\(silencedRun.map { "\($0["id"] ?? ""): \($0["verdict"] ?? "") \($0["lines"] ?? "")" })")
        for scenario in failed {
            // Every failing step is placed, in the scenario file or in the steps file it
            // includes, and `permit test`'s lines name that line.
            let places = try #require(scenario["failedSteps"] as? [[String: Any]])
            #expect(!places.isEmpty)
            let words = (scenario["lines"] as? [String]) ?? []
            #expect(
                places.allSatisfy { place in
                    let line = place["line"] as? Int ?? 0
                    return words.contains { $0.contains("(line \(line))") || $0.contains(".yaml:\(line))") }
                }, "\(scenario["id"] ?? ""): \(words)")
            let own = try #require(scenario["failedLines"] as? [Int])
            #expect(own == places.filter { $0["file"] as? String == scenario["file"] as? String }.compactMap { $0["line"] as? Int })
        }
        return clean
    }

    /// The copy table: no text is marked missing for a declared locale unless `permit check`
    /// reports that translation too. Its rows, to check the timelines' pictures against.
    static func copyTable(_ served: RunningPlayground, declared: [String]) async throws -> [[String: Any]] {
        let copy = try await served.api("/api/copy", ["files": [String: String]()]).json()
        let rows = try #require(copy["rows"] as? [[String: Any]])
        #expect(!rows.isEmpty)
        let problems = (copy["problems"] as? [String]) ?? []
        for row in rows {
            let missing = Set((row["missing"] as? [String]) ?? []).intersection(declared)
            let texts = (row["texts"] as? [String: String]) ?? [:]
            for locale in missing.sorted() {
                #expect(
                    problems.contains { $0.contains(locale) && texts.values.contains(where: $0.contains) },
                    "\(row["place"] ?? "") \(row["field"] ?? "") is marked missing in \(locale), which permit check does not report: \(problems)"
                )
            }
        }
        return rows
    }
}
