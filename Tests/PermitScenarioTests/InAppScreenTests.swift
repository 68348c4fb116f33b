import Foundation
import PermitLua
import Testing

@testable import PermitCore
@testable import PermitScenario

/// The app's own UI in scenarios (docs/platform.md U-01): a soft prompt survives leaving the
/// app and goes with the process; an inline row blocks nothing and needs no answer.
@Suite struct InAppScreenTests {
    /// A soft prompt on `diary`, an inline settings row on `notifications` while denied, the
    /// dialog after an accept.
    static let source = """
        return { name = "screens", decide = function(ctx)
          local e = ctx.event
          if e.name == "feature_opened" and e.feature == "diary" and ctx.status == "not_determined" then
            return { action = "soft_prompt", title = "Stay on track", message = "We remind you.",
                     accept = "Allow", decline = "Not now" }
          end
          if e.name == "feature_opened" and e.feature == "notifications" then
            return { action = "settings_prompt", presentation = "inline", title = "Notifications are off",
                     message = "Turn them on in Settings.", open = "Go to Settings" }
          end
          if e.name == "soft_prompt_answered" and e.answer == "accept" then
            return { action = "request_permission" }
          end
          if e.name == "feature_opened" and (e.feature == "about" or e.feature == "manage") then
            return { action = "inform", title = "Manage notifications", message = "Now in Settings.", button = "Continue",
                     open = e.feature == "manage" and "Open Settings" or nil }
          end
        end }
        """

    func run(_ text: String) async throws -> ScenarioResult {
        try await play(text, policy: Self.source, chunkName: "screens.lua")
    }

    @Test func aSoftPromptSurvivesTheBackgroundAndIsAnsweredOnTheReturn() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: diary, expect: soft_prompt }
              - { after: 10s, event: app_background, expect: none }
              - { after: 2h, event: app_foreground, expect: none }
              - { answer: accept, expect: request_permission, expect_dialog: true,
                  expect_ledger: { soft_prompt.shown: 1, soft_prompt.accepted: 1 } }
            """)
        #expect(failures(result) == [])
        try #require(result.steps.count == 5)
        #expect(result.steps[2].notes.contains("a soft prompt stays on its screen for the user's return"))
        #expect(result.steps[3].notes.contains("a soft prompt is still on screen, as the user left it"))
    }

    @Test(arguments: ["{ after: 1h, terminate: true }", "{ after: 1h, event: app_launch }"])
    func aSoftPromptGoesWithItsProcess(end: String) async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: diary, expect: soft_prompt }
              - { after: 10s, event: app_background }
              - \(end)
              - { event: app_launch, expect_ledger: { soft_prompt.shown: 1, soft_prompt.accepted: 0, soft_prompt.dismissed: 0 } }
              - { answer: accept }
            """)
        #expect(result.abortedAfterStep == 6)
        #expect(failures(result) == ["step 6: there is nothing on screen to answer with accept"])
        try #require(result.steps.count == 6)
        #expect(result.steps[3].notes.contains { $0.contains("a soft prompt on screen went with") })
    }

    /// A page's `open` takes the user to Settings and leaves the page up: a `settings` step may
    /// change switches meanwhile, the return finds the page, and `ok` closes it.
    @Test func aPagesOpenButtonLeavesThePageUpAcrossSettings() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: manage, expect: { action: inform, open: Open Settings }, expect_screen: inform_page }
              - { answer: open, expect: none, expect_screen: inform_page, expect_ledger: { inform.opened: 1, inform.ok: 0 } }
              - { settings: { authorization: authorized } }
              - { event: app_foreground, expect_status: authorized, expect_screen: inform_page }
              - { answer: ok, expect_screen: nothing, expect_ledger: { inform.shown: 1, inform.opened: 1, inform.ok: 1 } }
            """)
        #expect(failures(result) == [])
        try #require(result.steps.count == 6)
        #expect(
            result.steps[2].notes.contains { $0.contains("an information page stays on screen for the return") }, "\(result.steps[2].notes)"
        )
        #expect(result.steps[4].notes.contains("an information page is still on screen, as the user left it"), "\(result.steps[4].notes)")
    }

    /// A page without an `open` button cannot be answered with `open`: the step fails, naming
    /// the answers it takes.
    @Test func aPageWithoutAnOpenButtonRefusesOpen() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: about, expect_screen: inform_page }
              - { answer: open }
            """)
        #expect(result.abortedAfterStep == 3)
        #expect(failures(result) == ["step 3: an information page is on screen; answer it with ok, dismiss, not open"])
    }

    /// Leaving the app does not make a foreground step legal while the prompt waits there.
    @Test func withThePromptUpOnlyLeavingReturningOrEndingIsLegal() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: diary }
              - { event: app_background }
              - { event: feature_opened, feature: diary }
            """)
        #expect(result.abortedAfterStep == 4)
        #expect(failures(result).first?.hasPrefix("step 4: a soft prompt is on screen and stays until answered") == true)
    }

    /// Five visits to an inline row: no answer steps, no warnings; the ledger counts it apart.
    @Test func anInlineRowNeedsNoAnswer() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: notifications, expect: { action: settings_prompt, presentation: inline } }
              - { event: feature_opened, feature: notifications }
              - { event: app_background }
              - { after: 1h, event: app_foreground }
              - { event: feature_opened, feature: notifications }
              - { event: feature_opened, feature: diary, expect: none }
              - { event: feature_opened, feature: notifications }
              - { event: feature_opened, feature: notifications,
                  expect_ledger: { prompts_today: 0, settings_prompt.inline_shown: 5, settings_prompt.shown: 0 } }
              - { answer: open, expect_ledger: { settings_prompt.inline_acted: 1, settings_prompt.opened: 0 } }
            """)
        #expect(failures(result) == [])
        #expect(result.steps.allSatisfy { $0.outcome?.warnings.isEmpty ?? true })
    }

    /// A decision of `none` leaves the row where it is: the user may still act on it after
    /// other events; `dismiss` takes it away, and a second `dismiss` is only a note.
    @Test func aRowStaysThroughNoneAndGoesWithDismiss() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: notifications, expect_screen: inline_settings_prompt }
              - { event: feature_opened, feature: diary, expect: none, expect_screen: inline_settings_prompt }
              - { answer: open, expect_ledger: { settings_prompt.inline_acted: 1 } }
            """)
        #expect(failures(result) == [])
        let dismissing = try await ScenarioRunner(
            policy: try LuaPolicy(
                source: """
                    return { name = "rows", decide = function(ctx)
                      if ctx.event.name == "app_launch" or ctx.event.name == "feature_opened" then
                        return { action = "inform", presentation = "inline", title = "Notifications are off" }
                      end
                      if ctx.event.name == "feature_closed" then return { action = "dismiss" } end
                    end }
                    """, chunkName: "rows.lua")
        ).run(
            try parse(
                """
                device: { os: "17.0" }
                steps:
                  - { event: app_launch, expect: inform, expect_screen: label }
                  - { event: feature_closed, feature: feed, expect: dismiss, expect_screen: nothing }
                  - { event: feature_closed, feature: feed, expect: dismiss, expect_screen: nothing }
                  - { event: feature_opened, feature: feed, expect_screen: label }
                  - { answer: ok }
                """))
        #expect(failures(dismissing) == ["step 5: a label row is on screen, with nothing to tap; there is nothing to answer with ok"])
        try #require(dismissing.steps.count == 5)
        #expect(dismissing.steps[1].notes.contains("a label row was taken off screen (dismiss)"))
        #expect(
            dismissing.steps[2].notes.contains(
                "dismiss: none of the app's own prompts, rows or pages was on screen, so nothing changed"))
    }

    /// A row is part of its screen: `open` leaves it there through the visit to Settings, and
    /// its ✕ (`dismiss`) takes it away.
    @Test func aSettingsRowStaysAfterOpenAndGoesWithItsCross() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: notifications, expect_screen: inline_settings_prompt }
              - { answer: open, expect_screen: inline_settings_prompt }
              - { after: 1m, event: app_foreground, expect_screen: inline_settings_prompt,
                  expect_ledger: { settings_prompt.inline_shown: 1, settings_prompt.inline_acted: 1 } }
              - { answer: dismiss, expect_screen: nothing }
            """)
        #expect(failures(result) == [])
        try #require(result.steps.count == 5)
        #expect(
            result.steps[2].notes.contains(
                "the user leaves for Settings (the app is in the background); an inline settings row stays on screen for the return"))
        #expect(result.steps[3].notes.contains("an inline settings row is still on screen, as the user left it"))
    }

    /// A settings row without an `open` text is read, shown and tapped as a whole; the
    /// timeline says the whole row is the button.
    @Test func aRowWithoutOpenIsItsOwnButton() async throws {
        let policy = try LuaPolicy(
            source: """
                return { name = "row", decide = function(ctx)
                  if ctx.event.name == "feature_opened" then
                    return { action = "settings_prompt", presentation = "inline", title = "Notifications are OFF",
                             message = "Fix now.", deep_link = "notification_settings" }
                  end
                end }
                """, chunkName: "row.lua")
        let result = try await ScenarioRunner(policy: policy).run(
            try parse(
                """
                device: { os: "17.0" }
                initial: { authorization: denied }
                steps:
                  - { event: app_launch }
                  - { event: feature_opened, feature: status, expect_screen: inline_settings_prompt }
                  - { answer: open, expect: none, expect_screen: inline_settings_prompt,
                      expect_ledger: { settings_prompt.inline_acted: 1 } }
                """))
        #expect(failures(result) == [])
        let decision = try #require(result.steps[1].outcome?.decision)
        #expect(
            TimelineFormatter(start: 0).describe(decision)
                == "settings_prompt inline \"Notifications are OFF\" → notification_settings [the whole row]")
    }

    /// A page comes up over the row; answered, it goes and the row is on screen again.
    @Test func aPageGoesOverTheRowAndTheRowIsBackAfter() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: notifications, expect_screen: inline_settings_prompt }
              - { event: feature_opened, feature: about, expect: inform, expect_screen: inform_page }
              - { answer: ok, expect_screen: inline_settings_prompt, expect_ledger: { settings_prompt.inline_shown: 1 } }
            """)
        #expect(failures(result) == [])
        try #require(result.steps.count == 4)
        #expect(result.steps[3].notes.contains("an inline settings row beneath an information page is on screen again"))
    }

    /// An inline row is acted on or closed; it has no cancel button.
    @Test func anInlineRowHasNoCancel() async throws {
        let result = try await run(
            """
            device: { os: "17.0" }
            initial: { authorization: denied }
            steps:
              - { event: app_launch }
              - { event: feature_opened, feature: notifications }
              - { answer: cancel }
            """)
        #expect(failures(result) == ["step 3: an inline settings row is on screen; answer it with open, dismiss, not cancel"])
    }
}
