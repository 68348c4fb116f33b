import Foundation
import PermitTestSupport
import Testing

/// `permit check`'s probe runs: every decision they bring back is validated as `permit decide`
/// validates it and named with its probe; the texts are held to the policy's `locales`; the
/// probes reach branches that turn on the time of day and on how often an app event happened.
@Suite struct CheckProbeTests {
    static func check(_ source: String, review: Bool = false, files: [String: String] = [:]) async throws -> ProcessResult {
        let tree = Tree()
        tree.write("p/policy.lua", source)
        for (path, text) in files { tree.write(path, text) }
        return try await CLITests.permit(["check"] + (review ? ["--review"] : []) + ["p"], in: tree.root)
    }

    static let prompt = #"title = "T", message = "M", accept = "Continue", decline = "Not now""#

    /// Each malformed decision `permit decide` refuses, returned on a branch only a probe reaches.
    @Test(arguments: [
        (#"{ action = "nudge" }"#, #"decision.action: "nudge" is not an action"#),
        (#"{ action = "settings_prompt", title = "T", message = "M", open = "Open" }"#, "decision.cancel: missing"),
        (
            #"{ action = "soft_prompt", \#(prompt), presentation = "popover" }"#,
            #"decision.presentation: expected "#
        ),
        (#"{ action = "none", colour = "red" }"#, #"decision.colour: not a field of a none decision"#),
    ])
    func aMalformedDecisionFailsTheCheckWithItsProbe(decision: String, error: String) async throws {
        let run = try await Self.check(
            """
            return { name = "p", decide = function(ctx)
              if ctx.status == "denied" and ctx.event.name == "feature_opened" and ctx.local_time.hour == 19 then
                return \(decision)
              end
              return nil
            end }
            """)
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("error p/policy.lua: \(error)"), "\(run.stdout)")
        #expect(
            run.stdout.contains(#"found by the probe feature_opened feature="notifications_probe"; denied, iOS 17.0, 19:30 UTC"#),
            "\(run.stdout)")
        #expect(!run.stdout.contains("ok    "))
    }

    @Test func aBrokenDecisionOnLaunchStillWarnsAsksAtLaunch() async throws {
        let run = try await Self.check(
            """
            return { name = "p", decide = function(ctx)
              if ctx.event.name == "app_launch" then
                return { action = "soft_prompt", \(Self.prompt), presentation = "popover" }
              end
              return nil
            end }
            """, review: true)
        #expect(run.status == 2)
        #expect(run.stdout.contains("error p/policy.lua: decision.presentation"), "\(run.stdout)")
        #expect(run.stdout.contains("asks-at-launch: decide returned soft_prompt on app_launch"), "\(run.stdout)")
        #expect(run.stdout.contains("review: 1 warning"))
    }

    /// A prompt shown only outside quiet hours, on the 2nd lesson, with its Spanish decline
    /// missing: the probes reach it, and the declared locales name the gap.
    @Test func declaredLocalesAreReportedWhereTheProbesReachTheText() async throws {
        let run = try await Self.check(
            """
            return { name = "p", locales = { "en", "es" }, events = { "lesson_completed" },
              decide = function(ctx)
                local h = ctx.local_time.hour
                if h < 8 or h >= 22 then return { action = "none", reason = "quiet hours" } end
                if ctx.event.name == "lesson_completed" and ctx.history.events.lesson_completed.count == 2 then
                  return { action = "soft_prompt", reason = "second lesson",
                    title = { en = "Streak", es = "Racha" }, message = { en = "M", es = "M" },
                    accept = { en = "Continue", es = "Continuar" }, decline = { en = "Not now" } }
                end
                if ctx.event.name == "feature_opened" then
                  return { action = "soft_prompt", reason = "plain", title = "T", message = { en = "M", es = "M" },
                    accept = { en = "Continue", es = "Continuar" }, decline = { en = "Not now", es = "Ahora no" } }
                end
                return nil
              end }
            """)
        #expect(run.status == 2)
        #expect(
            run.stdout.contains(
                #"the decision with reason "second lesson": decision.decline has no "es" translation, which the policy's locales ask for"#),
            "\(run.stdout)")
        #expect(
            run.stdout.contains(
                #"the decision with reason "plain": decision.title is one string for every language, but the policy's locales ask for "es""#
            ))
    }

    @Test func aRegionalLocaleIsCoveredByItsLanguageAsTheAppFallsBack() async throws {
        let run = try await Self.check(
            """
            return { name = "p", locales = { "en", "es-MX", "en-GB" }, decide = function(ctx)
              return { action = "soft_prompt", reason = "r", title = { en = "T", es = "T" }, message = { en = "M", es = "M" },
                accept = { en = "Continue", es = "Continuar" }, decline = { en = "Not now", es = "Ahora no" } }
            end }
            """)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("locales en, es-MX, en-GB"))
    }

    @Test func aBadLocalesListIsALoadErrorWithItsLine() async throws {
        let run = try await Self.check(
            """
            return { name = "p",
              locales = { "es", "es_MX" },
              decide = function(ctx) return nil end }
            """)
        #expect(run.status == 2)
        #expect(
            run.stdout.contains(#"p/policy.lua:2: policy.locales: "es_MX" is not a BCP 47 language tag; write it like "es-MX""#),
            "\(run.stdout)")
        #expect(run.stdout.contains(#"policy.locales: the list has no "en""#))
    }
}

/// `permit check --review`: the blind spots of a pre-prompt's title, its decline, and a cold ask.
@Suite struct ReviewProbeTests {
    /// A question, in a local of copy or as a `title`, and a `title =` that is no question.
    @Test func aTitleIsNoButton() async throws {
        let run = try await CheckProbeTests.check(
            """
            local question = "Allow notifications?"
            return { name = "p", decide = function(ctx)
              if ctx.event.name == "app_foreground" then
                return { action = "soft_prompt", title = "Allow notifications", message = "We remind you.",
                  accept = "Continue", decline = "Not now" }
              end
              if ctx.event.name ~= "feature_opened" then return nil end
              return { action = "soft_prompt", title = question, message = "We remind you.",
                accept = "Continue", decline = "Not now" }
            end }
            """, review: true)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.hasSuffix("review: no warnings\n"), "\(run.stdout)")
    }

    @Test func aDeclineThatStillAsksIsFlagged() async throws {
        let run = try await CheckProbeTests.check(
            """
            return { name = "p", decide = function(ctx)
              if ctx.event.name == "feature_opened" and ctx.status == "not_determined" then
                return { action = "soft_prompt", \(CheckProbeTests.prompt) }
              end
              if ctx.event.name == "soft_prompt_answered" and ctx.history.soft_prompt.shown > 0 then
                return { action = "request_permission" }
              end
              return nil
            end }
            """, review: true)
        #expect(
            run.stdout.contains(
                "warn  p/policy.lua (feature_opened notifications_probe, not_determined, iOS 17.0): decline-still-asks: "
                    + "after the pre-prompt's decline, decide returned request_permission"), "\(run.stdout)")
        #expect(run.stdout.contains("see docs/review.md#decline-still-asks"))
    }

    @Test func aColdRequestOnAnAppEventIsFlaggedAndAProvisionalOneIsNot() async throws {
        let run = try await CheckProbeTests.check(
            """
            return { name = "p", events = { "signed_in", "lesson_completed" }, decide = function(ctx)
              if ctx.event.name == "signed_in" and ctx.history.events.signed_in.count == 1 then
                return { action = "request_permission" }
              end
              if ctx.event.name == "lesson_completed" then
                return { action = "request_permission", options = { "alert", "provisional" } }
              end
              return nil
            end }
            """, review: true)
        #expect(run.stdout.contains("warn  p/policy.lua (signed_in, iOS 17.0, fresh install): cold-ask-on-app-event: "), "\(run.stdout)")
        #expect(!run.stdout.contains("(lesson_completed"))
        #expect(run.stdout.hasSuffix("review: 1 warning (see docs/review.md)\n"), "said once, not per iOS version: \(run.stdout)")
    }
}

/// The shipped `lessons` pack declares `locales = { "en", "de" }`: a German text deleted from
/// its pre-prompt, which shows only after the 2nd lesson and outside quiet hours, is reported.
@Suite struct ShippedPackLocalesTests {
    @Test func aDeletedTranslationOfTheLessonsPackIsReported() async throws {
        let pack = CLITests.repository.appendingPathComponent("policies/lessons/policy.lua")
        let source = try String(contentsOf: pack, encoding: .utf8)
        let cut = source.replacingOccurrences(
            of: #"decline = { en = "Not now", de = "Nicht jetzt" },"#, with: #"decline = { en = "Not now" },"#)
        #expect(cut != source, "the pack's decline text is where the test expects it")
        let run = try await CheckProbeTests.check(cut)
        #expect(run.status == 2)
        #expect(
            run.stdout.contains(
                #"p/policy.lua: the decision with reason "lesson 2 completed": decision.decline has no "de" translation, which the policy's locales ask for; add it"#
            ), "\(run.stdout)")
    }
}
