import Foundation
import PermitLua
import Testing

@testable import PermitCore
@testable import PermitScenario

/// A web link (`link`, `url`) in scenarios: `answer: link` leaves what it is on up, on a
/// dialog as on a row, and is refused where there is no link, as any answer a screen lacks.
@Suite struct InAppScreenLinkTests {
    /// A pre-prompt with a link on `diary`, one without on `plain`, an inline row with a link
    /// on `notifications` while denied.
    static let source = """
        return { name = "links", decide = function(ctx)
          local e = ctx.event
          if e.name == "feature_opened" and (e.feature == "diary" or e.feature == "plain") then
            return { action = "soft_prompt", title = "Stay on track", message = "We remind you.", accept = "Allow",
                     decline = "Not now", id = "primer",
                     link = e.feature == "diary" and "Why?" or nil, url = e.feature == "diary" and "https://example.com/why" or nil }
          end
          if e.name == "feature_opened" and e.feature == "notifications" then
            return { action = "settings_prompt", presentation = "inline", title = "Notifications are off",
                     message = "Turn them on in Settings.", open = "Go to Settings", link = "Help", url = "https://example.com/help" }
          end
          if e.name == "soft_prompt_answered" and e.answer == "accept" then
            return { action = "request_permission" }
          end
        end }
        """

    func run(_ text: String) async throws -> ScenarioResult {
        try await play(text, policy: Self.source, chunkName: "links.lua")
    }

    /// The link is answered, the prompt stays (through a trip to the browser outside the app
    /// too), and its accept still leads to the dialog, carrying the prompt's id.
    @Test func aLinkLeavesThePromptUp() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: diary, expect: { action: soft_prompt, link: "Why?", url: "https://example.com/why" } }
              - { answer: link, expect: none, expect_screen: soft_prompt, expect_ledger: { soft_prompt.links: 1, soft_prompt.accepted: 0 } }
              - { event: app_background }
              - { event: app_foreground, expect_screen: soft_prompt }
              - { answer: accept, expect: request_permission, expect_dialog: true, expect_ledger: { soft_prompt.accepted: 1 } }
            """)
        #expect(failures(result) == [])
        try #require(result.steps.count == 6)
        #expect(
            result.steps[2].notes.contains("the host opens the link's web page; a soft prompt stays on screen for the return"),
            "\(result.steps[2].notes)")
    }

    /// An inline row's link leaves the row up and counts neither as acted on nor as opened.
    @Test func aRowsLinkLeavesTheRowUp() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: notifications, expect_screen: inline_settings_prompt }
              - { answer: link, expect_screen: inline_settings_prompt,
                  expect_ledger: { settings_prompt.links: 1, settings_prompt.inline_acted: 0, settings_prompt.opened: 0 } }
            """)
        #expect(failures(result) == [])
    }

    /// A prompt without a link cannot be answered with `link`: the step fails, naming the
    /// answers it takes.
    @Test func aPromptWithoutALinkRefusesLink() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: plain, expect_screen: soft_prompt }
              - { answer: link }
            """)
        #expect(result.abortedAfterStep == 3)
        #expect(failures(result) == ["step 3: a soft prompt is on screen; answer it with accept, decline, dismiss, not link"])
    }
}
