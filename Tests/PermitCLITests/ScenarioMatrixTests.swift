import Foundation
import PermitTestSupport
import Testing

@testable import PermitScenario

/// `matrix:` and case-dependent expectations, through `permit test` (in-process), with
/// `--filter` and `file:line`.
@Suite struct ScenarioMatrixTests {
    /// A pack running the polite policy with the given test files.
    static func politePack(_ files: [String: String]) throws -> Tree {
        let tree = Tree()
        tree.write(
            "p/policy.lua",
            try String(
                contentsOf: CLITests.repository.appendingPathComponent("policies/polite/policy.lua"), encoding: .utf8))
        for (name, text) in files { tree.write("p/tests/\(name)", text) }
        return tree
    }

    /// Denied earlier; the settings prompt's deep link depends on the iOS version, its title on nothing.
    static let deepLinks = """
        name: deep link
        matrix: { os: ["12.0", "15.3", "16.4"], locale: [en, de] }
        device: { timezone: UTC }
        initial: { authorization: denied }
        steps:
          - { event: app_launch, expect_status: denied }
          - { after: 3d, event: feature_opened, feature: reminders,
              expect: { action: settings_prompt,
                        deep_link: { "<15.4": app_settings, default: notification_settings },
                        title: { de: Notifications are off, en: Notifications are off } } }
          - answer: cancel

        """

    @Test func eachCaseRunsAsANamedScenario() async throws {
        let tree = try Self.politePack(["links.yaml": Self.deepLinks])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for name in ["deep link [os=12.0, locale=en]", "deep link [os=15.3, locale=de]", "deep link [os=16.4, locale=de]"] {
            #expect(run.stdout.contains("PASS  \(tree.path("p/tests/links.yaml"))  \(name) (3 steps)"), "\(run.stdout)")
        }
        #expect(run.stdout.hasSuffix("6 passed, 0 failed, 0 skipped\n"))

        let one = try await CLITests.permit(["test", tree.path(), "--filter", "os=16.4, locale=de"])
        #expect(one.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"), "\(one.stdout)")
        let byLine = try await CLITests.permit(["test", tree.path("p/tests/links.yaml") + ":7"])
        #expect(byLine.stdout.hasSuffix("6 passed, 0 failed, 0 skipped\n"), "file:line runs every case of its scenario")
    }

    /// A regional locale takes the text of its language, as the app shows it: `zh-Hans` answers
    /// for `zh-Hans-CN`, `en` for `en-GB`; an exact key still comes first.
    @Test func aLocaleFallsBackToItsLanguageAsTheAppDoes() async throws {
        let texts = """
            name: texts
            matrix: { locale: [en, en-GB, zh-Hans-CN, zh-Hant-HK] }
            device: { os: "16.4", timezone: UTC }
            steps:
              - { event: feature_opened, feature: reminders,
                  expect: { action: soft_prompt,
                            title: { zh-Hans: 不错过任何提醒, zh-Hant-HK: 不錯過任何提醒, en: Never miss a reminder } } }
              - answer: decline

            """
        let tree = try Self.politePack(["texts.yaml": texts])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasSuffix("4 passed, 0 failed, 0 skipped\n"), "\(run.stdout)")
        // English is no fallback for another language: the case must be named.
        let french = texts.replacingOccurrences(of: "zh-Hant-HK]", with: "fr]")
        let refused = try await CLITests.permit(["test", try Self.politePack(["texts.yaml": french]).path()])
        #expect(refused.status == 2 && refused.stdout.contains("no value for the case locale=fr"), "\(refused.stdout)")
    }

    /// `expect_ledger` times in the scenario's own notation: ISO 8601, `start+DURATION`, and
    /// Unix seconds as before; a wrong one fails with the time it got, a text that is no time
    /// is an input error at its line.
    @Test func ledgerTimesAreWrittenAsTheScenarioClockIs() async throws {
        func scenario(_ shownAt: String) -> String {
            """
            name: times
            start: "2026-01-05T08:00:00Z"
            device: { os: "16.4", timezone: UTC }
            steps:
              - { after: 2d1h, event: feature_opened, feature: reminders, expect: soft_prompt,
                  expect_ledger: { soft_prompt.last_shown_at: \(shownAt) } }
              - answer: decline

            """
        }
        for written in [#""2026-01-07T09:00:00Z""#, "start+2d1h", "start + 2d1h", "1767776400"] {
            let run = try await CLITests.permit(["test", try Self.politePack(["t.yaml": scenario(written)]).path()])
            #expect(run.status == 0, "\(written): \(run.stdout)\(run.stderr)")
        }
        let wrong = try await CLITests.permit(["test", try Self.politePack(["t.yaml": scenario("start+2d")]).path()])
        #expect(
            wrong.status == 1 && wrong.stdout.contains("ledger.soft_prompt.last_shown_at: expected 1767772800, got 1767776400"),
            "\(wrong.stdout)")
        let bad = try await CLITests.permit(["test", try Self.politePack(["t.yaml": scenario("tomorrow")]).path()])
        #expect(
            bad.status == 2
                && bad.stdout.contains(#"t.yaml:6:51: steps[1].expect_ledger.soft_prompt.last_shown_at: "tomorrow" is not a time"#),
            "\(bad.stdout)")
    }

    /// A case the expectation gets wrong fails alone, named.
    @Test func aWrongCaseValueFailsThatCaseOnly() async throws {
        let wrong = Self.deepLinks.replacingOccurrences(of: "\"<15.4\"", with: "\"<15.3\"")
        let tree = try Self.politePack(["links.yaml": wrong])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAIL  \(tree.path("p/tests/links.yaml"))  deep link [os=15.3, locale=en]"))
        #expect(run.stdout.contains("✗ decision.deep_link: expected \"notification_settings\", got \"app_settings\""))
        #expect(run.stdout.hasSuffix("4 passed, 2 failed, 0 skipped\n"))
    }

    @Test func skipAndOnlyApplyToEveryCase() async throws {
        let tree = try Self.politePack(["links.yaml": "skip: \"copy pending\"\n" + Self.deepLinks])
        let run = try await CLITests.permit(["test", tree.path()])
        #expect(run.stdout.hasSuffix("0 passed, 0 failed, 6 skipped\n"), "\(run.stdout)")
    }

    @Test func matrixMistakesAreInputErrorsNamingTheLine() async throws {
        let cases: [(String, String)] = [
            (
                Self.deepLinks.replacingOccurrences(of: "locale: [en, de]", with: "lang: [en, de]"),
                "links.yaml:2:41: matrix: unknown key \"lang\"; expected one of: os, locale, timezone, bucket"
            ),
            (
                Self.deepLinks.replacingOccurrences(of: "locale: [en, de]", with: "locale: []"),
                "links.yaml:2:49: matrix.locale: the axis locale has no values"
            ),
            (
                Self.deepLinks.replacingOccurrences(of: "timezone: UTC", with: "os: \"16.4\""),
                "links.yaml:3:15: device.os: os is set by the matrix"
            ),
            (
                Self.deepLinks.replacingOccurrences(of: "default: notification_settings", with: "\"15.3\": app_settings"),
                "links.yaml:9:28: steps[2].expect.deep_link: no value for the case os=16.4, locale=en; add `default:`"
            ),
            (
                Self.deepLinks.replacingOccurrences(of: "en: Notifications", with: "fr: Notifications"),
                "links.yaml:10:24: steps[2].expect.title: no value for the case os=12.0, locale=en; add `default:`"
            ),
            (
                Self.deepLinks.replacingOccurrences(of: "en: Notifications", with: "english: Notifications"),
                "links.yaml:10:62: steps[2].expect.title.english: \"english\" picks no case"
            ),
        ]
        for (text, message) in cases {
            let tree = try Self.politePack(["links.yaml": text])
            let run = try await CLITests.permit(["test", tree.path()])
            #expect(run.status == 2)
            #expect(run.stdout.contains(message), "\(run.stdout)")
        }
    }

    /// Without a matrix, ranges still pick by the device's version.
    @Test func rangesWorkWithoutAMatrix() throws {
        let scenario = try ScenarioParser.parse(
            """
            device: { os: "9.3" }
            steps:
              - { event: app_launch, expect_status: { ">=10": not_determined, default: denied } }
            """, file: "s.yaml")
        #expect(scenario.steps[0].expectations.status == .denied)
        #expect(scenario.name == "s")
        // Setting names are never case keys, though `car_play` has the shape of a locale with a script.
        let settings = try ScenarioParser.parse(
            """
            device: { os: "16.4" }
            steps:
              - { event: app_launch, expect_settings: { car_play: disabled, alert: { "<17": disabled, default: enabled } } }
            """, file: "s.yaml")
        #expect(settings.steps[0].expectations.settings == [.carPlay: .disabled, .alert: .disabled])
    }
}
