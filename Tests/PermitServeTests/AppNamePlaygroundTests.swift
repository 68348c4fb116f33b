import Foundation
import Testing

/// Texts that name the app in the playground: the timeline plays a scenario with its
/// `device.app_name`, so its picture shows the name filled in; the copy table lists what the
/// probes (no name from the host: the policy's fallback) and the scenarios show, a `{{app}}`
/// as the `{app}` it writes, and the text without a fallback as the problem it is.
@Suite struct AppNamePlaygroundTests {
    @Test func theTimelineShowsTheFilledTextInTheScenariosLanguage() async throws {
        let served = try await RunningPlayground(pack: "app-name")
        defer { Task { await served.stop() } }
        let id = "tests/renamed-german.yaml::A build renamed Pillenfreund names itself in German"
        let timeline = try await served.api("/api/timeline", ["scenario": id, "locale": "de"]).json()
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        let screens = steps.compactMap { $0["screen"] as? [String: Any] }
        let prompt = try #require(screens.first { $0["kind"] as? String == "soft_prompt" }, "\(timeline)")
        #expect(prompt["title"] as? String == "Erinnerungen von Pillenfreund")
        let page = try #require(screens.first { $0["kind"] as? String == "inform_page" }, "\(timeline)")
        #expect(page["title"] as? String == "Pillenfreund schreibt {app}, wo ein Name hingehört")
    }

    @Test func theCopyTableListsTheFilledTextsAndTheOneWithoutAName() async throws {
        let served = try await RunningPlayground(pack: "app-name")
        defer { Task { await served.stop() } }
        let copy = try await served.api("/api/copy", ["files": [String: String]()]).json()
        let rows = try #require(copy["rows"] as? [[String: Any]])
        let texts = rows.compactMap { $0["texts"] as? [String: String] }
        #expect(texts.contains(["en": "Reminders from Dose Diary", "de": "Erinnerungen von Dose Diary"]), "\(rows)")
        #expect(texts.contains(["en": "Reminders from Pill Pal", "de": "Erinnerungen von Pill Pal"]), "\(rows)")
        #expect(texts.contains { $0["en"] == "Pill Pal writes {app} where a name goes" }, "\(rows)")
        let problems = try #require(copy["problems"] as? [String])
        #expect(problems.contains { $0.contains(#"permit.copy("about.title")"#) && $0.contains("text has {app}, which no value fills") })
    }
}
