import Foundation
import PermitTestSupport
import Testing

/// The playground as a product manager uses it, in a real browser: Chromium, headless, driven
/// over WebDriver by Debian's chromedriver. The test types into the editor, watches a scenario
/// turn red with its line, opens its timeline and sees the prompt drawn on the iPhone; then
/// saves, and is refused over a file changed on disk. A pack with copy files (English and
/// German) shows a dropped translation marked missing and draws a step in the chosen locale; a
/// pack with information pages draws its onboarding page with its button, in English and German.
///
/// Without chromedriver or chromium it fails, saying that `make test` installs them.
@Suite("permit serve: in a browser", .serialized)
struct PlaygroundInBrowserTests {
    /// Where the screenshots for docs/playground.md go when PERMIT_SCREENSHOTS names a folder.
    static let screenshots = ProcessInfo.processInfo.environment["PERMIT_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }

    static func shoot(_ browser: WebDriver, _ name: String) async throws {
        guard let folder = screenshots else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await browser.screenshot().write(to: folder.appendingPathComponent(name + ".png"))
    }

    /// Selects `old` in the editor (its first occurrence) and types `new` over it, as a person
    /// double-clicking a word and typing would.
    static func typeOver(_ old: String, with new: String, in browser: WebDriver) async throws {
        let editor = try await browser.element("#editor")
        let found = try await browser.execute(
            "const e = document.getElementById('editor'); const i = e.value.indexOf(arguments[0]); e.focus(); e.setSelectionRange(i, i + arguments[0].length); return i;",
            [old])
        #expect((found as? Int ?? -1) >= 0, "\(old) is not in the editor")
        try await browser.type(new, into: editor)
    }

    static func verdicts(_ browser: WebDriver) async throws -> [String: String] {
        let value = try await browser.execute(
            "return Array.from(document.querySelectorAll('#tests li')).map(li => [li.dataset.id, li.dataset.verdict]);")
        var verdicts: [String: String] = [:]
        for pair in (value as? [[String]]) ?? [] where pair.count == 2 { verdicts[pair[0]] = pair[1] }
        return verdicts
    }

    @Test func aProductManagerEditsSeesARedScenarioAndItsDialog() async throws {
        let served = try await RunningPlayground()
        do {
            try await WebDriver.with { browser in try await Self.editSeeItFailAndSeeTheDialog(served, browser) }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    static func editSeeItFailAndSeeTheDialog(_ served: RunningPlayground, _ browser: WebDriver) async throws {
        try await browser.open(served.url)
        try await browser.wait("every scenario passing") {
            let verdicts = try await Self.verdicts(browser)
            return verdicts.count == 22 && verdicts.values.allSatisfy { $0 == "pass" }
        }
        try await Self.shoot(browser, "playground-tests")

        // A syntax error: the load report names the line and the gutter marks it.
        try await Self.typeOver("local function gap", with: "local function = gap", in: browser)
        try await browser.wait("the load error with its line") {
            let status = try await browser.text(of: try await browser.element("#load-status"))
            let marked = try await browser.elements("#gutter span.bad[data-line='36']")
            return status.contains("line 36:") && !marked.isEmpty
        }
        try await Self.typeOver("local function = gap", with: "local function gap", in: browser)

        // A text a scenario expects: that scenario turns red, with its line.
        try await Self.typeOver("\"Continue\"", with: "\"Go on\"", in: browser)
        let failing = "tests/locale-fallback-en.yaml::Locales — French falls back to English"
        try await browser.wait("the locale scenario failing") {
            let verdicts = try await Self.verdicts(browser)
            return verdicts[failing] == "fail" && verdicts.values.filter { $0 == "fail" }.count == 1
        }
        let row = try await browser.element("#tests li[data-verdict='fail']")
        #expect(try await browser.text(of: row).contains("step 2 (line 6)"))
        try await Self.shoot(browser, "playground-failing")

        // Its timeline: the soft prompt, drawn with the edited button.
        try await browser.click(row)
        try await browser.wait("the timeline's steps") { try await browser.elements("#tl-steps li").count == 3 }
        try await browser.click(try await browser.elements("#tl-steps li")[1])
        try await browser.wait("the soft prompt on the iPhone") {
            let sheet = try await browser.elements("#tl-phone .sheet.soft_prompt")
            guard sheet.count == 1 else { return false }
            return try await browser.text(of: sheet[0]).contains("Go on")
        }

        // Another scenario, in Chinese: the system dialog after the accept.
        _ = try await browser.execute(
            "const s = document.getElementById('tl-scenario'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
            ["tests/ios16-accept.yaml::iOS 16 — a polite ask in context"])
        try await browser.wait("five steps") { try await browser.elements("#tl-steps li").count == 5 }
        try await browser.click(try await browser.elements("#tl-steps li")[2])
        try await browser.wait("the system dialog") {
            let alert = try await browser.elements("#tl-phone .alert.system-dialog")
            guard alert.count == 1 else { return false }
            return try await browser.text(of: alert[0]).contains("Allow")
        }
        try await Self.shoot(browser, "playground-timeline")
    }

    @Test func aPackWithCopyFilesShowsAMissingKeyAndDrawsTheChosenLocale() async throws {
        let served = try await RunningPlayground(pack: "dose-alerts")
        do {
            try await WebDriver.with { browser in try await Self.translateAndSeeTheLocale(served, browser) }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// The Copy panel's rows as their cells' texts, a missing text as `missing`.
    static func copyRows(_ browser: WebDriver) async throws -> [[String]] {
        let value = try await browser.execute(
            "return Array.from(document.querySelectorAll('#copy-table tr')).map(tr => Array.from(tr.children).map(td => td.classList.contains('missing') ? 'missing' : td.textContent));"
        )
        return (value as? [[String]]) ?? []
    }

    static func translateAndSeeTheLocale(_ served: RunningPlayground, _ browser: WebDriver) async throws {
        // The pack's scenarios read their texts from copy/en.yaml and copy/de.yaml.
        let scenarios = try #require(
            try await served.api("/api/tests", ["files": [String: String]()]).json()["scenarios"] as? [[String: Any]])
        try await browser.open(served.url)
        try await browser.wait("every scenario passing") {
            let verdicts = try await Self.verdicts(browser)
            return verdicts.count == scenarios.count && verdicts.values.allSatisfy { $0 == "pass" }
        }

        // A German scenario's settings prompt, drawn in German, then on an English device.
        try await browser.click(try await browser.element("#tabs button[data-tab='timeline']"))
        _ = try await browser.execute(
            "const s = document.getElementById('tl-scenario'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
            ["tests/copy-and-registration.yaml::German texts come from the pack's copy; an app without APNs never registers"])
        try await browser.wait("the scenario's steps") { try await browser.elements("#tl-steps li").count == 7 }
        try await browser.click(try await browser.elements("#tl-steps li")[5])
        func sheet(says texts: [String]) async throws -> Bool {
            let sheets = try await browser.elements("#tl-phone .sheet.settings_prompt")
            guard sheets.count == 1 else { return false }
            let shown = try await browser.text(of: sheets[0])
            return texts.allSatisfy { shown.contains($0) }
        }
        try await browser.wait("the settings prompt in German") {
            try await sheet(says: ["Dringende Warnungen durchlassen", "Einstellungen öffnen"])
        }
        _ = try await browser.execute(
            "const l = document.getElementById('tl-locale'); l.value = 'en'; l.dispatchEvent(new Event('change'));")
        try await browser.wait("the settings prompt in English") {
            try await sheet(says: ["Let urgent alerts through", "Open Settings"])
        }

        // A translator drops a German text: the Copy panel marks it missing.
        _ = try await browser.execute(
            "const f = document.getElementById('file'); f.value = 'copy/de.yaml'; f.dispatchEvent(new Event('change'));")
        try await Self.typeOver("button.later: Später", with: "# button.later", in: browser)
        try await browser.click(try await browser.element("#tabs button[data-tab='copy']"))
        try await browser.wait("the German cancel button marked missing") {
            let rows = try await Self.copyRows(browser)
            guard let header = rows.first, let german = header.firstIndex(of: "de"), let english = header.firstIndex(of: "en") else {
                return false
            }
            return rows.contains { $0.count > german && $0[english] == "Later" && $0[german] == "missing" }
        }
        #expect(
            try String(contentsOf: served.pack.appendingPathComponent("copy/de.yaml"), encoding: .utf8).contains("button.later: Später"),
            "an unsaved edit is never written")
    }

    @Test func aPackWithInformPagesDrawsThePageWithItsButton() async throws {
        let served = try await RunningPlayground(pack: "exposure-alerts")
        do {
            try await WebDriver.with { browser in try await Self.seeTheOnboardingPage(served, browser) }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// A page that came up over a label is drawn over it, the label still on the app's screen;
    /// an alert put up with a row (`row`) is drawn over that row.
    @Test func aPageOverARowIsDrawnWithTheRowBeneath() async throws {
        let served = try await RunningPlayground(pack: "pages-and-rows")
        do {
            try await WebDriver.with { browser in
                try await browser.open(served.url)
                try await browser.wait("the scenarios listed") { try await Self.verdicts(browser).count == 17 }
                try await browser.click(try await browser.element("#tabs button[data-tab='timeline']"))
                _ = try await browser.execute(
                    "const s = document.getElementById('tl-scenario'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
                    [
                        "tests/modal-over-row.yaml::A page shown over a row goes over it; the row is there again when the page "
                            + "closes, and dismiss takes the page first"
                    ])
                try await browser.wait("the page over the label") {
                    let steps = try await browser.elements("#tl-steps li")
                    guard steps.count > 2, (try? await browser.text(of: steps[2]))?.contains("safety_info") == true else { return false }
                    _ = try? await browser.click(steps[2])
                    let pages = try await browser.elements("#tl-phone .sheet.inform_page")
                    let labels = try await browser.elements("#tl-phone .inline.label")
                    guard pages.count == 1, labels.count == 1 else { return false }
                    return (try? await browser.text(of: labels[0]))?.contains("Notifications are off") == true
                }
                _ = try await browser.execute(
                    "const s = document.getElementById('tl-scenario'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
                    [
                        "tests/alert-with-row.yaml::One check puts up an alert and the row beneath it; answers go to the alert first, "
                            + "then to the row"
                    ])
                try await browser.wait("the alert over the row it came with") {
                    let steps = try await browser.elements("#tl-steps li")
                    guard steps.count > 1, (try? await browser.text(of: steps[1]))?.contains("safety_check") == true else { return false }
                    _ = try? await browser.click(steps[1])
                    let alerts = try await browser.elements("#tl-phone .sheet.settings_prompt")
                    let rows = try await browser.elements("#tl-phone .inline.inline_settings_prompt")
                    guard alerts.count == 1, rows.count == 1 else { return false }
                    return (try? await browser.text(of: rows[0]))?.contains("Safety alerts are off") == true
                }
            }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// A settings row's status list (`rows`) is drawn as names with their values beside them,
    /// in the locale shown, as the timeline's JSON carries it.
    @Test func aRowsStatusListIsDrawnNameBesideValue() async throws {
        let served = try await RunningPlayground(pack: "insulin-alerts")
        let scenario =
            "tests/alert-permissions.yaml::The Alert Permissions screen lists what Settings decides, follows changes made "
            + "there, and goes with its screen"
        do {
            let timeline = try await served.api("/api/timeline", ["scenario": scenario, "locale": "en"]).json()
            let steps = try #require(timeline["steps"] as? [[String: Any]], "\(timeline)")
            let screen = try #require(steps.count > 2 ? steps[2]["screen"] as? [String: Any] : nil, "\(steps)")
            let rows = try #require(screen["rows"] as? [[String: String]], "\(screen)")
            #expect(
                rows.map { "\($0["name"] ?? ""): \($0["value"] ?? "")" } == [
                    "Notifications: On", "Notification Delivery: Immediate", "Critical Alerts: On", "Time Sensitive Notifications: On",
                ])
            try await WebDriver.with { browser in
                try await browser.open(served.url)
                try await browser.wait("the scenarios listed") { try await !Self.verdicts(browser).isEmpty }
                try await browser.click(try await browser.element("#tabs button[data-tab='timeline']"))
                _ = try await browser.execute(
                    "const s = document.getElementById('tl-scenario'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
                    [scenario])
                try await browser.wait("the Alert Permissions rows drawn") {
                    let items = try await browser.elements("#tl-steps li")
                    guard items.count > 2 else { return false }
                    _ = try? await browser.click(items[2])
                    let drawn = try await browser.elements("#tl-phone .inline .rows .row")
                    guard drawn.count == 4 else { return false }
                    let last = (try? await browser.text(of: drawn[3])) ?? ""
                    return last.contains("Time Sensitive Notifications") && last.contains("On")
                }
            }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// The page's picture after step `index` of `scenario`: the sheet's title and its one button.
    static func informPage(
        of scenario: String, step index: Int, says title: String, button: String, in browser: WebDriver
    ) async throws {
        _ = try await browser.execute(
            "const s = document.getElementById('tl-scenario'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
            [scenario])
        // The list is drawn again when the scenario's timeline arrives: the step is clicked
        // on each look until its picture shows, so a list replaced under the click is no failure.
        try await browser.wait("the information page of \(scenario) saying \(title)") {
            let steps = try await browser.elements("#tl-steps li")
            guard steps.count > index, (try? await browser.text(of: steps[index]))?.contains("onboarding_stay_informed") == true else {
                return false
            }
            _ = try? await browser.click(steps[index])
            let sheets = try await browser.elements("#tl-phone .sheet.inform_page")
            guard sheets.count == 1 else { return false }
            let buttons = try await browser.elements("#tl-phone .sheet.inform_page button")
            guard buttons.count == 1 else { return false }
            guard let shown = try? await browser.text(of: sheets[0]), let label = try? await browser.text(of: buttons[0]) else {
                return false
            }
            return shown.contains(title) && label == button
        }
    }

    static func seeTheOnboardingPage(_ served: RunningPlayground, _ browser: WebDriver) async throws {
        let scenarios = try #require(
            try await served.api("/api/tests", ["files": [String: String]()]).json()["scenarios"] as? [[String: Any]])
        try await browser.open(served.url)
        try await browser.wait("every scenario passing") {
            let verdicts = try await Self.verdicts(browser)
            return verdicts.count == scenarios.count && verdicts.values.allSatisfy { $0 == "pass" }
        }
        try await browser.click(try await browser.element("#tabs button[data-tab='timeline']"))
        try await Self.informPage(
            of:
                "tests/first-launch.yaml::The onboarding's notifications page asks with its one button, Next; the Settings cell then reads On",
            step: 1, says: "Receive warnings and identify risks", button: "Next", in: browser)
        try await Self.informPage(
            of: "tests/german.yaml::The German texts come from the pack's copy", step: 1, says: "Warnungen erhalten, Risiken erkennen",
            button: "Weiter", in: browser)
    }

    @Test func aSaveShowsTheDiffAndIsRefusedOverAChangeOnDisk() async throws {
        let served = try await RunningPlayground()
        do {
            try await WebDriver.with { browser in try await Self.saveThenMeetAChangeOnDisk(served, browser) }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    static func saveThenMeetAChangeOnDisk(_ served: RunningPlayground, _ browser: WebDriver) async throws {
        try await browser.open(served.url)
        try await browser.wait("the scenarios") { try await Self.verdicts(browser).count == 22 }
        try await Self.typeOver("max_soft_prompts = 3", with: "max_soft_prompts = 2", in: browser)
        try await browser.click(try await browser.element("#save"))
        try await browser.wait("the diff") {
            try await browser.text(of: try await browser.element("#save-diff")).contains("+    max_soft_prompts = 2")
        }
        try await Self.shoot(browser, "playground-save")
        try await browser.click(try await browser.element("#save-confirm"))
        try await browser.wait("the save") { served.policyText.contains("max_soft_prompts = 2") }

        // Someone changes the file on disk; the page's next save is refused and offers a reload.
        let onDisk = served.policyText + "-- edited elsewhere\n"
        try onDisk.write(to: served.pack.appendingPathComponent("policy.lua"), atomically: true, encoding: .utf8)
        try await Self.typeOver("max_soft_prompts = 2", with: "max_soft_prompts = 1", in: browser)
        try await browser.click(try await browser.element("#save"))
        try await browser.wait("the diff") {
            try await browser.text(of: try await browser.element("#save-diff")).contains("edited elsewhere")
        }
        try await browser.click(try await browser.element("#save-confirm"))
        try await browser.wait("the refusal") {
            try await browser.text(of: try await browser.element("#save-error")).contains("changed on disk")
        }
        #expect(served.policyText == onDisk)
        _ = try await browser.execute("window.confirm = () => true;")
        try await browser.click(try await browser.element("#save-reload"))
        try await browser.wait("the reloaded text") {
            (try await browser.execute("return document.getElementById('editor').value;") as? String) == onDisk
        }
    }
}
