import Foundation
import PermitTestSupport
import Testing

@testable import PermitScenario

/// `permit check --review`: App Store and HIG risks, through the `permit` verbs (in-process).
@Suite struct ReviewCLITests {
    /// Asks on launch, with an "Allow" button, the system alert's title, and a private Settings URL.
    static let risky = """
        local texts = {
          title = { en = "\\"Diary\\" Would Like to Send You Notifications", de = "Tagebuch" },
          accept = { en = "Allow", de = "Erlauben" },
        }
        return {
          name = "risky",
          decide = function(ctx)
            if ctx.event.name == "app_launch" then
              return { action = "soft_prompt", title = texts.title, message = "m", accept = texts.accept,
                       decline = "Not now", reason = "first launch" }
            end
            if ctx.status == "denied" then
              return { action = "settings_prompt", title = "Off", message = "Open " .. "App-" .. "Pre" .. "fs:root=NOTIFICATIONS_ID",
                       open = "Open", cancel = "Cancel" }
            end
            return { action = "none" }
          end,
        }
        """

    @Test func everyRiskIsWarnedWithItsGuidelineAndExitsZeroUnlessStrict() async throws {
        let tree = Tree()
        tree.write("risky/policy.lua", Self.risky)
        let result = try await CLITests.permit(["check", "--review", "risky"], in: tree.root)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let out = result.stdout
        // Static scan: the literal on its line.
        #expect(out.contains("warn  risky/policy.lua:3: allow-button: a pre-prompt button says \"Allow\""), "\(out)")
        #expect(out.contains("warn  risky/policy.lua:3: allow-button: a pre-prompt button says \"Erlauben\""))
        #expect(out.contains("warn  risky/policy.lua:2: imitates-system-alert: "))
        // Probes: the ask on launch, and the URL the static scan cannot see (it is built at run time).
        #expect(
            out.contains(
                "warn  risky/policy.lua (app_launch, iOS 17.0, fresh install): asks-at-launch: "
                    + "decide returned soft_prompt on app_launch"))
        #expect(out.contains("private-settings-url: a text holds a private Settings URL (Open App-Prefs:root=NOTIFICATIONS_ID)"))
        #expect(out.contains("https://developer.apple.com/design/human-interface-guidelines/privacy"))
        #expect(out.contains("see docs/review.md#asks-at-launch"))
        #expect(out.hasSuffix("review: 5 warnings (see docs/review.md)\n"), "\(out)")

        let strict = try await CLITests.permit(["check", "--review", "--strict", "risky"], in: tree.root)
        #expect(strict.status == 1)
        let alone = try await CLITests.permit(["check", "--strict", "risky"], in: tree.root)
        #expect(alone.status == 2 && alone.stderr.contains("add --review"))
        let plain = try await CLITests.permit(["check", "risky"], in: tree.root)
        #expect(plain.status == 0 && !plain.stdout.contains("warn"), "without --review, no review")
    }

    @Test func aPrivateURLInTheFileIsFoundWithoutAnyProbe() async throws {
        let tree = Tree()
        tree.write(
            "p/policy.lua",
            """
            local unused = "prefs:root=NOTIFICATIONS_ID" -- never returned
            return { name = "p", decide = function(ctx) return { action = "none" } end }
            """)
        let result = try await CLITests.permit(["check", "--review", "p"], in: tree.root)
        #expect(result.stdout.contains("warn  p/policy.lua:1: private-settings-url: the text holds \"prefs:root\""), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("review: 1 warning (see docs/review.md)\n"))
    }

    /// The shipped packs pass the review, but for `reminders`, which asks on launch on purpose
    /// and says why in its README.
    @Test func theShippedPacksPassOrSayWhyNot() async throws {
        let packs = try FileManager.default.contentsOfDirectory(atPath: CLITests.repository.appendingPathComponent("policies").path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
        #expect(packs.count >= 4)
        let quiet = packs.filter { $0 != "reminders" }.map { "policies/" + $0 }
        let strict = try await CLITests.permit(["check", "--review", "--strict"] + quiet)
        #expect(strict.status == 0, "\(strict.stdout)\(strict.stderr)")
        #expect(strict.stdout.hasSuffix("review: no warnings\n"))

        let reminders = try await CLITests.permit(["check", "--review", "policies/reminders"])
        #expect(reminders.status == 0)
        let warnings = reminders.stdout.split(separator: "\n").filter { $0.hasPrefix("warn ") }
        #expect(warnings.count == 1 && warnings[0].contains(": asks-at-launch: "), "\(reminders.stdout)")
        let readme = try String(
            contentsOf: CLITests.repository.appendingPathComponent("policies/reminders/README.md"), encoding: .utf8)
        #expect(readme.contains("permit check --review") && readme.contains("asks-at-launch"))
    }

    @Test func theStaticScanReadsLiteralsNotComments() {
        #expect(PolicyReview.stringLiterals(in: #"x = "a\"b" .. 'c' -- "not this""#) == [#"a"b"#, "c"])
        #expect(PolicyReview.scan(source: "-- tap \"Allow\" in the dialog\n", file: "f").isEmpty)
        #expect(
            PolicyReview.scan(source: "message = \"Allow notifications and we will remind you.\"\n", file: "f").isEmpty,
            "a sentence is not a button")
        #expect(PolicyReview.scan(source: "accept = \"Allow alerts\"\n", file: "f").map(\.rule) == [.allowButton])
    }
}
