import Foundation
import PermitServe
import PermitTestSupport
import Testing

/// What each panel asks the server for, on a copy of the polite pack: unsaved edits are
/// evaluated and never written.
@Suite("permit serve: the API", .serialized)
struct PlaygroundAPITests {
    static func scenarios(_ answer: RawHTTP.Answer) throws -> [[String: Any]] {
        try #require(try answer.json()["scenarios"] as? [[String: Any]])
    }

    @Test func anEditIsTestedUnsavedAndItsFailureNamesTheLine() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let saved = served.policyText
        let clean = try Self.scenarios(await served.api("/api/tests", ["files": [String: String]()]))
        #expect(clean.count == 22)
        #expect(clean.allSatisfy { $0["verdict"] as? String == "pass" })
        let edited = saved.replacingOccurrences(of: "accept  = { en = \"Continue\"", with: "accept  = { en = \"Go on\"")
        let run = try Self.scenarios(await served.api("/api/tests", ["files": ["policy.lua": edited]]))
        let failed = run.filter { $0["verdict"] as? String == "fail" }
        #expect(failed.map { $0["file"] as? String } == ["polite/tests/locale-fallback-en.yaml"])
        #expect(failed.first?["failedLines"] as? [Int] == [6])
        #expect(
            (failed.first?["failedSteps"] as? [[String: Any]])?.map { "\($0["file"] ?? ""):\($0["line"] ?? "")" } == [
                "polite/tests/locale-fallback-en.yaml:6"
            ])
        #expect((failed.first?["lines"] as? [String])?.contains { $0.contains("step 2 (line 6)") } == true)
        #expect(served.policyText == saved)
        // A syntax error: the load report names its line.
        let broken = try await served.api("/api/tests", ["files": ["policy.lua": saved + "\nlocal x = = 1\n"]]).json()
        let problems = try #require((broken["load"] as? [String: Any])?["problems"] as? [[String: Any]])
        #expect(problems.first?["line"] as? Int == saved.split(separator: "\n", omittingEmptySubsequences: false).count + 1)
    }

    /// A failing step written in an included steps file is placed in that file: no line of the
    /// scenario file that includes it is marked.
    @Test func aFailingIncludedStepNamesItsOwnFile() async throws {
        let served = try await RunningPlayground(pack: "reminders")
        defer { Task { await served.stop() } }
        let edited = served.policyText.replacingOccurrences(
            of: "accept  = { en = \"Continue\"", with: "accept  = { en = \"Go on\"")
        #expect(edited != served.policyText)
        let run = try Self.scenarios(await served.api("/api/tests", ["files": ["policy.lua": edited]]))
        let primer = try #require(run.first { $0["file"] as? String == "reminders/tests/primer-allow.yaml" })
        #expect(primer["verdict"] as? String == "fail")
        #expect(primer["failedLines"] as? [Int] == [])
        let places = try #require(primer["failedSteps"] as? [[String: Any]])
        #expect(!places.isEmpty)
        #expect(
            places.allSatisfy {
                $0["file"] as? String == "reminders/tests/common/primer-allowed.steps.yaml" && $0["line"] as? Int == 4
            }, "\(places)")
    }

    @Test func aTimelineShowsTheDialogInTheChosenLocale() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let id = "tests/ios16-accept.yaml::iOS 16 — a polite ask in context"
        let timeline = try await served.api("/api/timeline", ["scenario": id, "locale": "zh-Hans"]).json()
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        #expect(steps.count == 5)
        let soft = try #require(steps[1]["screen"] as? [String: Any])
        #expect(soft["kind"] as? String == "soft_prompt")
        #expect(soft["title"] as? String == "不错过任何提醒")
        let dialog = try #require(steps[2]["screen"] as? [String: Any])
        #expect(dialog["kind"] as? String == "system_dialog")
        #expect((steps[2]["decision"] as? [String: String])?["action"] == "request_permission")
        #expect(steps[3]["status"] as? String == "authorized")
    }

    /// Each step's picture is what is on screen after it, not only what its decision showed: a
    /// page over a label draws the label beneath it, the label is back when the page is
    /// answered (a step that decides nothing), a page left up while the user was away is still
    /// drawn, and `dismiss` takes the page and then the label.
    @Test func aTimelineDrawsWhatIsOnScreenAfterEachStep() async throws {
        let served = try await RunningPlayground(pack: "pages-and-rows")
        defer { Task { await served.stop() } }
        let id =
            "tests/modal-over-row.yaml::A page shown over a row goes over it; the row is there again when the page closes, "
            + "and dismiss takes the page first"
        let timeline = try await served.api("/api/timeline", ["scenario": id]).json()
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        try #require(steps.count == 9, "\(timeline)")
        func drawn(_ index: Int) -> (kind: String?, title: String?, beneath: String?) {
            let screen = steps[index]["screen"] as? [String: Any]
            let beneath = steps[index]["beneath"] as? [String: Any]
            return (screen?["kind"] as? String, screen?["title"] as? String, beneath?["title"] as? String)
        }
        #expect(drawn(1) == ("label", "Notifications are off", nil))
        #expect(drawn(2) == ("inform_page", "About alerts", "Notifications are off"))
        #expect(drawn(3) == ("label", "Notifications are off", nil))
        #expect(drawn(5) == ("inform_page", "About alerts", "Notifications are off"))
        #expect(drawn(7) == ("label", "Notifications are off", nil))
        #expect((steps[7]["screen"] as? [String: Any])?["note"] as? String == "the app takes its prompt, row or page off screen")
        #expect(drawn(8) == ("none", nil, nil))
    }

    /// A decision's `row` is drawn beneath the modal it comes with, from that step on: the
    /// alert and its row at once, the row alone once the alert is answered, and a label in the
    /// row's place when a later check takes the alert away. Try it draws the row beneath too.
    @Test func aDecisionsRowIsDrawnBeneathItsAlert() async throws {
        let served = try await RunningPlayground(pack: "pages-and-rows")
        defer { Task { await served.stop() } }
        let id =
            "tests/alert-with-row.yaml::One check puts up an alert and the row beneath it; answers go to the alert first, then to the row"
        let timeline = try await served.api("/api/timeline", ["scenario": id]).json()
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        try #require(steps.count == 4, "\(timeline)")
        func drawn(_ index: Int) -> (kind: String?, title: String?, beneath: String?) {
            let screen = steps[index]["screen"] as? [String: Any]
            let beneath = steps[index]["beneath"] as? [String: Any]
            return (screen?["kind"] as? String, screen?["title"] as? String, beneath?["title"] as? String)
        }
        #expect(drawn(1) == ("settings_prompt", "Alerts are off", "Safety alerts are off"))
        #expect(drawn(2) == ("inline_settings_prompt", "Safety alerts are off", nil))
        let attempt: [String: Any] = ["status": "denied", "os": "17.2", "event": "safety_check", "locale": "en"]
        let decided = try await served.api("/api/decide", ["attempt": attempt]).json()
        #expect((decided["screen"] as? [String: Any])?["title"] as? String == "Alerts are off")
        #expect((decided["beneath"] as? [String: Any])?["title"] as? String == "Safety alerts are off")
        #expect((decided["text"] as? String)?.contains("+ row settings_prompt inline \"Safety alerts are off\"") == true, "\(decided)")
        // Once on: the label alone, drawn as the screen (no modal to go beneath).
        var fixed = attempt
        fixed["status"] = "authorized"
        let relabelled = try await served.api("/api/decide", ["attempt": fixed]).json()
        #expect((relabelled["screen"] as? [String: Any])?["kind"] as? String == "label")
        #expect(relabelled["beneath"] == nil || relabelled["beneath"] is NSNull)
    }

    @Test func tryItDecidesAsPermitDecide() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let attempt: [String: Any] = [
            "status": "not_determined", "os": "16.4", "event": "feature_opened", "feature": "reminders", "locale": "zh-Hant",
        ]
        let decided = try await served.api("/api/decide", ["attempt": attempt]).json()
        #expect((decided["decision"] as? [String: String])?["action"] == "soft_prompt")
        #expect((decided["screen"] as? [String: Any])?["title"] as? String == "不錯過任何提醒")
        // permit decide's line: `feature_opened feature="reminders"  unknown → not_determined  soft_prompt "…" [繼續 | 以後再說]`.
        #expect((decided["text"] as? String)?.contains("soft_prompt \"不錯過任何提醒\" [繼續 | 以後再說]") == true)
        // Denied a moment ago: the settings prompt backs off, as permit decide says.
        var denied = attempt
        denied["status"] = "denied"
        let backingOff = try await served.api("/api/decide", ["attempt": denied]).json()
        #expect((backingOff["decision"] as? [String: String])?["reason"] == "backing off: next settings prompt after 3 days")
        var wrong = attempt
        wrong["status"] = "maybe"
        #expect(
            (try await served.api("/api/decide", ["attempt": wrong]).json()["errors"] as? [String])?.first?.contains("not a status") == true
        )
    }

    @Test func theCopyTableListsEveryTextAndMarksMissingLocales() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let copy = try await served.api("/api/copy", ["files": [String: String]()]).json()
        let rows = try #require(copy["rows"] as? [[String: Any]])
        #expect(rows.contains { ($0["texts"] as? [String: String])?["en"] == "Never miss a reminder" })
        #expect(rows.contains { ($0["texts"] as? [String: String])?["zh-Hant"] == "前往設定" })
        // Drop a translation: the row marks the locale missing.
        let edited = served.policyText.replacingOccurrences(of: ", [\"zh-Hant\"] = \"繼續\"", with: "")
        let marked = try #require(try await served.api("/api/copy", ["files": ["policy.lua": edited]]).json()["rows"] as? [[String: Any]])
        let accept = try #require(marked.first { ($0["texts"] as? [String: String])?["en"] == "Continue" })
        #expect(accept["missing"] as? [String] == ["zh-Hant"])
    }

    /// A page with an `open` button: the timeline's picture shows both buttons, in the chosen
    /// locale, and the copy table lists the `open` text with its translations.
    @Test func aPagesOpenButtonIsInThePictureAndTheCopyTable() async throws {
        let served = try await RunningPlayground(pack: "exposure-alerts")
        defer { Task { await served.stop() } }
        let id = "tests/update-page-settings.yaml::The Manage Notifications page stays up across a visit to Settings and is shown once"
        let timeline = try await served.api("/api/timeline", ["scenario": id, "locale": "de"]).json()
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        let page = try #require(steps.lazy.compactMap { $0["screen"] as? [String: Any] }.first { $0["kind"] as? String == "inform_page" })
        #expect(page["title"] as? String == "Mitteilungen verwalten")
        #expect(page["buttons"] as? [String] == ["Weiter", "Geräteeinstellungen öffnen"])
        let rows = try #require(try await served.api("/api/copy", ["files": [String: String]()]).json()["rows"] as? [[String: Any]])
        let onPage = rows.filter { ($0["place"] as? String)?.hasPrefix("information page") == true }
        let open = try #require(onPage.first { $0["field"] as? String == "open" })
        #expect(open["texts"] as? [String: String] == ["en": "Open Device Settings", "de": "Geräteeinstellungen öffnen"])
    }

    /// A row with a web link: the timeline's picture carries the link's text and page in the
    /// chosen locale, and the copy table lists both as texts with their translations.
    @Test func aRowsWebLinkIsInThePictureAndTheCopyTable() async throws {
        let served = try await RunningPlayground(pack: "exposure-alerts")
        defer { Task { await served.stop() } }
        let id =
            "tests/faq-link.yaml::The FAQ link on the Manage Notifications row and page opens the FAQ in the device's language "
            + "and leaves them up [locale=de]"
        let timeline = try await served.api("/api/timeline", ["scenario": id, "locale": "de"]).json()
        let steps = try #require(timeline["steps"] as? [[String: Any]])
        let row = try #require(
            steps.lazy.compactMap { $0["screen"] as? [String: Any] }.first { $0["kind"] as? String == "inline_settings_prompt" })
        #expect(row["link"] as? String == "Details zu den Einstellungen Ihres jeweiligen Betriebssystems finden Sie in den FAQ.")
        #expect(row["url"] as? String == "https://www.coronawarn.app/de/faq/#notification_settings")
        let rows = try #require(try await served.api("/api/copy", ["files": [String: String]()]).json()["rows"] as? [[String: Any]])
        let onRow = rows.filter { ($0["place"] as? String)?.hasPrefix("inline settings prompt") == true }
        let url = try #require(onRow.first { $0["field"] as? String == "url" })
        #expect(
            url["texts"] as? [String: String] == [
                "en": "https://www.coronawarn.app/en/faq/#notification_settings",
                "de": "https://www.coronawarn.app/de/faq/#notification_settings",
            ])
        #expect(onRow.contains { $0["field"] as? String == "link" })
    }

    @Test func aPackWithCopyFilesIsEditedTestedAndBundledWithItsCopy() async throws {
        let served = try await RunningPlayground(pack: "dose-alerts")
        defer { Task { await served.stop() } }
        let files = try #require(try await served.api("/api/pack").json()["files"] as? [[String: Any]])
        #expect(files.compactMap { $0["path"] as? String } == ["policy.lua", "copy/de.yaml", "copy/en.yaml"])
        let german = try #require(files.first { $0["path"] as? String == "copy/de.yaml" }?["text"] as? String)
        // Every scenario reads its texts from the copy files.
        let clean = try Self.scenarios(await served.api("/api/tests", ["files": [String: String]()]))
        #expect(!clean.isEmpty && clean.allSatisfy { $0["verdict"] as? String == "pass" }, "\(clean)")
        // A German text dropped, unsaved: the German scenario fails and the Copy table marks it.
        let dropped = german.replacingOccurrences(of: "button.later: Später\n", with: "")
        let run = try Self.scenarios(await served.api("/api/tests", ["files": ["copy/de.yaml": dropped]]))
        #expect(
            run.filter { $0["verdict"] as? String == "fail" }.map { $0["file"] as? String } == [
                "dose-alerts/tests/copy-and-registration.yaml"
            ])
        let rows = try #require(try await served.api("/api/copy", ["files": ["copy/de.yaml": dropped]]).json()["rows"] as? [[String: Any]])
        let later = try #require(rows.first { ($0["texts"] as? [String: String])?["en"] == "Later" })
        #expect(later["missing"] as? [String] == ["de"])
        // The bundle carries the copy, as permit bundle puts it in.
        let bundle = try await served.api("/api/bundle", ["files": [String: String]()])
        #expect(bundle.status == 200, "\(bundle.text)")
        #expect(bundle.text.contains("\"copy.json\":"))
        // Opened again, the bundle gives back the copy files: the unedited one as on disk, the
        // edited one written from the bundle's texts, which read back the same.
        let english = try #require(files.first { $0["path"] as? String == "copy/en.yaml" }?["text"] as? String)
        let shared = german + "\nshared.note: \"Neu: \\\"zitiert\\\"\"\n"
        let sharedBundle = try await served.api("/api/bundle", ["files": ["copy/de.yaml": shared]])
        #expect(sharedBundle.status == 200, "\(sharedBundle.text)")
        let opened = try await RawHTTP.request(
            port: served.port, method: "POST", path: "/api/open", host: served.host,
            headers: [("X-Permit-Token", served.token)], body: sharedBundle.body)
        let openedFiles = try #require(try opened.json()["files"] as? [String: String], "\(opened.text)")
        #expect(openedFiles["copy/en.yaml"] == english)
        #expect(openedFiles["copy/de.yaml"]?.contains("\"shared.note\": \"Neu: \\\"zitiert\\\"\"") == true)
        let reopened = try Self.scenarios(await served.api("/api/tests", ["files": openedFiles]))
        #expect(reopened.allSatisfy { $0["verdict"] as? String == "pass" })
    }

    @Test func aComparisonRunsWithProgressAndCanBeCancelled() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let edited = served.policyText.replacingOccurrences(of: "max_soft_prompts = 3", with: "max_soft_prompts = 1")
        let request: [String: Any] = ["against": "saved", "model": "default.yaml", "users": 500, "days": 14, "sensitivity": 0]
        let started = try await served.api("/api/compare", ["files": ["policy.lua": edited], "compare": request]).json()
        let id = try #require(started["id"] as? Int)
        var state: [String: Any] = [:]
        for _ in 0..<600 {
            state = try await served.api("/api/compare/state", ["id": id]).json()
            if state["state"] as? String != "running" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(state["state"] as? String == "done")
        #expect((state["text"] as? String)?.contains("500 users") == true)
        #expect((state["html"] as? String)?.contains("<svg") == true)
        // A big one, cancelled at once.
        var big = request
        big["users"] = 20_000
        big["sensitivity"] = 10
        let second = try #require(try await served.api("/api/compare", ["compare": big]).json()["id"] as? Int)
        let cancelled = try await served.api("/api/compare/cancel", ["id": second]).json()
        #expect(cancelled["state"] as? String == "cancelled")
        var over = request
        over["users"] = 1_000_000
        #expect(try await served.api("/api/compare", ["compare": over]).status == 400)
    }

    @Test func theEditedPackDownloadsAsABundleAndOpensAgain() async throws {
        let served = try await RunningPlayground()
        defer { Task { await served.stop() } }
        let edited = served.policyText.replacingOccurrences(of: "max_soft_prompts = 3,", with: "max_soft_prompts = 3, -- shared")
        let bundle = try await served.api("/api/bundle", ["files": ["policy.lua": edited]])
        #expect(bundle.status == 200, "\(bundle.text)")
        #expect(bundle.headers["content-disposition"]?.contains(".permitbundle") == true)
        let opened = try await RawHTTP.request(
            port: served.port, method: "POST", path: "/api/open", host: served.host,
            headers: [("X-Permit-Token", served.token)], body: bundle.body)
        #expect((try opened.json()["files"] as? [String: String])?["policy.lua"] == edited)
        // A failing pack does not bundle: the gate says why.
        let failing = edited.replacingOccurrences(of: "accept  = { en = \"Continue\"", with: "accept  = { en = \"Go on\"")
        let refused = try await served.api("/api/bundle", ["files": ["policy.lua": failing]])
        #expect(refused.status == 400)
        #expect(refused.text.contains("not bundled"))
    }
}
