import Foundation
import PermitTestSupport
import Testing

/// `permit check`: the static half of the strict ctx (every unknown `ctx.` path with its line)
/// and incomplete translations.
@Suite struct CheckCommandTests {
    static func check(_ source: String) async throws -> ProcessResult {
        let tree = Tree()
        tree.write("p/policy.lua", source)
        return try await CLITests.permit(["check", tree.path("p")])
    }

    @Test func everyUnknownContextPathIsReportedWithItsLine() async throws {
        let run = try await Self.check(
            """
            -- ctx.histroy in a comment is not code
            return {
              name = "typos",
              params = { gap = 3 },
              events = { "lesson_completed" },
              decide = function(ctx)
                local s = "ctx.nope in a string" .. [[ ctx.nope ]]
                if ctx.histroy then return nil end
                if ctx.capabilities.notification_setting_link then return nil end
                if ctx.history
                     .soft_prompt.shwon > 0 then return nil end
                if ctx.history.events.lesson_complete then return nil end
                if ctx.params.gpa or ctx.params.gap then return nil end
                if ctx.history.features.diary and ctx.history.features.diary.opend then return nil end
                if ctx.state.anything or ctx.event.properties.count or ctx.history.soft_prompt.last_shown_at then return nil end
                return { action = "none", reason = "x" .. ctx.event.name .. ctx.params.gap }
              end,
            }
            """)
        #expect(run.status == 2)
        let lines = run.stdout.split(separator: "\n").map { String($0.split(separator: "/").last ?? "") }
        #expect(
            lines == [
                #"policy.lua:8: ctx: has no field "histroy"; did you mean "history"?"#,
                #"policy.lua:9: ctx.capabilities: has no field "notification_setting_link"; did you mean "notification_settings_link"?"#,
                #"policy.lua:11: ctx.history.soft_prompt: has no field "shwon"; did you mean "shown"?"#,
                #"policy.lua:12: ctx.history.events: has no field "lesson_complete"; did you mean "lesson_completed"? (list app events in the policy's events = { ... })"#,
                #"policy.lua:13: ctx.params: has no field "gpa"; did you mean "gap"? (declare it in the policy's params)"#,
                #"policy.lua:14: ctx.history.features.diary: has no field "opend"; did you mean "opened"?"#,
            ], "\(run.stdout)")
    }

    @Test func incompleteTranslationsAreReportedByDecision() async throws {
        let run = try await Self.check(
            """
            return {
              name = "tr",
              params = { features = { "diary" } },
              decide = function(ctx)
                if ctx.event.name == "app_launch" then
                  return { action = "soft_prompt", reason = "launch",
                    title = { en = "Hi", fr = "Salut" }, message = { en = "M" }, accept = { en_US = "OK", en = "OK" }, decline = "No" }
                end
                if ctx.event.feature == "diary" then
                  return { action = "settings_prompt", reason = "diary", title = { fr = "T" }, message = "M", open = "O", cancel = "C" }
                end
                if ctx.event.name == "app_foreground" then
                  return { action = "soft_prompt", reason = "fine", title = { en = "T", ["zh-Hans"] = "标题" },
                    message = { en = "M", ["zh-Hans"] = "消息" }, accept = "OK", decline = "No" }
                end
                return nil
              end,
            }
            """)
        #expect(run.status == 2)
        let lines = run.stdout.split(separator: "\n").map { String($0.split(separator: "/").last ?? "") }
        #expect(
            lines == [
                #"policy.lua: the decision with reason "launch": decision.accept key "en_US" is not a BCP 47 language tag; write it like "en-US""#,
                #"policy.lua: the decision with reason "launch": decision.message lacks "fr", which decision.title has"#,
                #"policy.lua: the decision with reason "launch": decision.accept lacks "fr", which decision.title has"#,
                #"policy.lua: the decision with reason "diary": decision.title has no "en" translation, the last fallback; add one"#,
            ], "\(run.stdout)")
    }

    @Test func theShippedPacksPass() async throws {
        let packs = ["legacy-aware", "lessons", "polite", "provisional-first", "reminders"].map { "policies/\($0)" }
        let run = try await CLITests.permit(["check"] + packs)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }
}
