import Foundation
import PermitCore
import PermitScenario
import PermitServe
import PermitTestSupport
import Testing

extension EveryShippedPackTests {
    /// The pictures each shown decision may be drawn as.
    static let pictures: [String: Set<String>] = [
        "soft_prompt": ["soft_prompt", "inline_soft_prompt"],
        "settings_prompt": ["settings_prompt", "inline_settings_prompt"],
        "inform": ["inform_page", "inline_inform", "label"],
    ]

    /// A scenario's timeline in its own locale: each step has what it did, a status and, for
    /// an event, a decision; each decision that shows something has its picture, with the
    /// decision's texts, which are the copy table's texts for the scenario's locale.
    static func timeline(_ served: RunningPlayground, scenario id: String, copy rows: [[String: Any]]) async throws {
        let timeline = try await served.api("/api/timeline", ["scenario": id]).json()
        #expect(timeline["problem"] == nil, "\(id): \(timeline["problem"] ?? "")")
        let locale = try #require(timeline["locale"] as? String)
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        #expect(!steps.isEmpty, "\(id)")
        let chain = LocalizedText.fallbackChain(for: locale)
        let copyTexts = Set(
            rows.compactMap { row -> String? in
                let texts = (row["texts"] as? [String: String]) ?? [:]
                return texts["*"] ?? LocalizedText.translations(texts).resolved(along: chain)
            })
        for step in steps {
            let at = "\(id) step \(step["number"] ?? "?") (\(step["action"] ?? ""))"
            let action = try #require(step["action"] as? String)
            #expect(!action.isEmpty, "\(at)")
            #expect((step["status"] as? String)?.isEmpty == false, "\(at)")
            let decision = try #require(step["decision"] as? [String: String])
            if action.hasPrefix("event") { #expect(decision["action"] != nil, "\(at): no decision") }
            let screen = try #require(step["screen"] as? [String: Any])
            let kind = screen["kind"] as? String ?? ""
            if decision["action"] == "request_permission" {
                #expect(kind == "system_dialog" || screen["note"] != nil, "\(at): \(screen)")
            }
            guard let drawn = pictures[decision["action"] ?? ""] else { continue }
            #expect(drawn.contains(kind), "\(at): a \(decision["action"] ?? "") drawn as \(kind)")
            let buttons = (screen["buttons"] as? [String]) ?? []
            #expect(screen["title"] as? String == decision["title"], "\(at)")
            #expect(screen["message"] as? String == decision["message"], "\(at)")
            let fields = ["accept", "decline", "open", "cancel", "button"].compactMap { decision[$0] }
            #expect(Set(buttons) == Set(fields), "\(at): buttons \(buttons), decision \(decision)")
            for text in [screen["title"] as? String, screen["message"] as? String].compactMap({ $0 }) + buttons {
                #expect(copyTexts.contains(text), "\(at): \"\(text)\" is not the copy table's text in \(locale)")
            }
        }
    }

    /// "Try it" with the first event of the pack's first scenario, on that scenario's device.
    static func tryIt(_ served: RunningPlayground, scenarios: [[String: Any]]) async throws {
        let id = try #require(scenarios.first?["id"] as? String)
        let parts = id.components(separatedBy: "::")
        let file = served.pack.appendingPathComponent(parts[0])
        let cases = try ScenarioParser.parseCases(contentsOf: file, displayName: parts[0])
        let scenario = try #require(cases.first { $0.name == parts.dropFirst().joined(separator: "::") })
        let event = try #require(
            scenario.steps.lazy.compactMap { step -> AppEvent? in if case .event(let event) = step.action { event } else { nil } }.first)
        var attempt: [String: Any] = [
            "status": (scenario.initial.authorization ?? .notDetermined).rawValue, "os": "\(scenario.device.version)",
            "event": event.name, "locale": scenario.device.locale,
            "history": String(decoding: try JSONEncoder().encode(scenario.initial.ledger), as: UTF8.self),
        ]
        for (name, value) in event.fields {
            switch (name, value) {
            case ("feature", .string(let feature)): attempt["feature"] = feature
            case ("answer", .string(let answer)): attempt["answer"] = answer
            case ("granted", .bool(let granted)): attempt["granted"] = granted
            case ("properties", .table(let properties)):
                attempt["properties"] = properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
            default: break
            }
        }
        let decided = try await served.api("/api/decide", ["attempt": attempt]).json()
        #expect((decided["errors"] as? [String])?.isEmpty == true, "\(id): \(decided["errors"] ?? "")")
        #expect((decided["decision"] as? [String: String])?["action"] != nil, "\(id): \(decided)")
        #expect((decided["text"] as? String)?.contains(event.name) == true, "\(id): \(decided["text"] ?? "")")
    }

    /// A small comparison of the silenced policy (unsaved) against the saved one, to the end,
    /// with its verdict and how sure it is.
    static func comparison(_ served: RunningPlayground) async throws {
        let request: [String: Any] = ["against": "saved", "model": "default.yaml", "users": 200, "days": 14, "sensitivity": 1]
        let started = try await served.api("/api/compare", ["files": ["policy.lua": try silenced(served.policyText)], "compare": request])
        let id = try #require(try started.json()["id"] as? Int, "\(started.text)")
        var state: [String: Any] = [:]
        for _ in 0..<1200 {
            state = try await served.api("/api/compare/state", ["id": id]).json()
            if state["state"] as? String != "running" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(state["state"] as? String == "done", "\(state["message"] ?? "")")
        #expect(state["done"] as? Int == state["total"] as? Int)
        let text = try #require(state["text"] as? String)
        #expect(text.contains("200 users"), "\(text)")
        let html = try #require(state["html"] as? String)
        #expect(html.contains("<p class=\"verdict\">"))
        #expect(html.contains("drawn models"))
    }

    /// The pack, unedited, downloaded as a bundle and opened again: the editor's files come back.
    static func share(_ served: RunningPlayground, files: [String: String]) async throws {
        let bundle = try await served.api("/api/bundle", ["files": [String: String]()])
        #expect(bundle.status == 200, "\(bundle.text)")
        let opened = try await RawHTTP.request(
            port: served.port, method: "POST", path: "/api/open", host: served.host,
            headers: [("X-Permit-Token", served.token)], body: bundle.body)
        #expect(opened.status == 200, "\(opened.text)")
        #expect(try opened.json()["files"] as? [String: String] == files)
    }
}
