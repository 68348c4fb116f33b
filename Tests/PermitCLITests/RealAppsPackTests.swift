import Foundation
import PermitTestSupport
import Testing

/// The insulin-alert pack under Tests/packs (copy as data, the app's version, a cap-exempt
/// safety prompt, a settings prompt for one setting, `feature_closed`, a policy that never
/// registers for pushes, a recorded review exception), run the way its authors would, and the
/// command-line behaviour those flows needed.
@Suite struct RealAppsPackTests {
    static let pack = "Tests/packs/dose-alerts"

    @Test func thePacksScenariosPass() async throws {
        let run = try await CLITests.permit(["test", Self.pack])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("4 passed"), "\(run.stdout)")
    }

    /// The pack of what apps show besides prompts (`inform` pages and labels, a page's `open`
    /// button, `dismiss`, prompt ids, `expect_followup`, `expect_screen`, a Scheduled Summary
    /// settings prompt, a status list of `rows` in two languages, an alert put up with the row
    /// beneath it and answered before it, `row`).
    @Test func thePagesAndRowsPackPasses() async throws {
        let run = try await CLITests.permit(["test", "Tests/packs/pages-and-rows"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("17 passed"), "\(run.stdout)")
        let check = try await CLITests.permit(["check", "Tests/packs/pages-and-rows"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    /// The pack of web links (`link`, `url`) on a pre-prompt, a row and a page passes; `permit
    /// check`'s probes find each link the policy returns by mistake, naming the field.
    @Test func theWebLinksPackPassesAndCheckNamesItsBadLinks() async throws {
        let run = try await CLITests.permit(["test", "Tests/packs/web-links"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("5 passed"), "\(run.stdout)")
        let check = try await CLITests.permit(["check", "Tests/packs/web-links"])
        #expect(check.status != 0)
        let errors = check.stdout.split(separator: "\n").filter { $0.hasPrefix("error") }
        #expect(errors.count == 3, "\(check.stdout)")
        #expect(errors.contains { $0.contains("decision.url: \"http://www.example.com/faq\" is not a web page a link may open") })
        #expect(errors.contains { $0.contains("decision.url: missing; a link needs the address") })
        #expect(errors.contains { $0.contains("decision.link: a label row has nothing to tap") })
    }

    /// `--strict` passes: the one rule the pack breaks on purpose is a note with its reason, and
    /// the safety prompt's reason for passing the cap is shown.
    @Test func reviewPrintsTheExceptionAndTheCapExemption() async throws {
        let run = try await CLITests.permit(["check", "--review", "--strict", Self.pack])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("asks-at-launch: excepted by the policy: insulin dosing"), "\(run.stdout)")
        #expect(run.stdout.contains("cap_exempt: a glucose alert the user cannot receive must not wait for tomorrow"), "\(run.stdout)")
        #expect(run.stdout.contains("review: no warnings"), "\(run.stdout)")
    }

    static func pack(policy: String, copy: [String: String], tests: [String: String] = [:]) -> Tree {
        let tree = Tree()
        tree.write("p/policy.lua", policy)
        for (name, text) in copy { tree.write("p/copy/\(name)", text) }
        for (name, text) in tests { tree.write("p/tests/\(name)", text) }
        return tree
    }

    @Test func checkNamesEveryKeyALocaleLacksAndItsFile() async throws {
        let tree = Self.pack(
            policy: #"return { name = "c", locales = { "en", "de", "fr" }, decide = function(ctx) return nil end }"#,
            copy: ["en.yaml": "a: A\nb: B\n", "de.yaml": "a: Ä\n"])
        let run = try await CLITests.permit(["check", tree.path("p")], in: tree.root)
        #expect(run.status == 2)
        #expect(
            run.stdout.split(separator: "\n").filter { $0.hasPrefix("error") } == [
                #"error p/copy/de.yaml: no text for "b" (en.yaml has it); add it to the file"#,
                #"error p/copy/fr.yaml: no text for "a" (de.yaml, en.yaml have it); add it to the file"#,
                #"error p/copy/fr.yaml: no text for "b" (en.yaml has it); add it to the file"#,
            ], "\(run.stdout)")
    }

    @Test func aBadCopyFileIsAnErrorWithItsLine() async throws {
        let tree = Self.pack(
            policy: #"return { name = "c", decide = function(ctx) return nil end }"#, copy: ["en.yaml": "a: A\nb:\n  c: C\n"])
        let run = try await CLITests.permit(["check", tree.path("p")], in: tree.root)
        #expect(run.status == 2)
        #expect(run.stdout.contains("p/copy/en.yaml:3"), "\(run.stdout)")
        #expect(run.stdout.contains(#"expected the text of "b""#), "\(run.stdout)")
    }

    /// A text reached only through an app event's property: the probes send the properties the
    /// pack's scenarios use, so the text missing in German is found.
    @Test func probesReachTextsBehindEventProperties() async throws {
        let tree = Self.pack(
            policy: """
                return { name = "p", locales = { "en", "de" }, events = { "order_shipped" },
                  decide = function(ctx)
                    if ctx.event.name == "order_shipped" and ctx.status == "not_determined" then
                      local texts = ctx.event.properties.express and { en = "Express!", de = "Express!" } or { en = "Shipped", de = "Versandt" }
                      local message = ctx.event.properties.express and { en = "On its way" } or { en = "Soon", de = "Bald" }
                      return { action = "soft_prompt", reason = "shipped", title = texts, message = message, accept = "OK", decline = "No" }
                    end
                  end }
                """,
            copy: [:],
            tests: [
                "t.yaml": """
                name: express
                device: { os: "17.0" }
                steps:
                  - { event: order_shipped, properties: { express: true }, expect: soft_prompt }
                  - { answer: decline }
                """
            ])
        let run = try await CLITests.permit(["check", tree.path("p")], in: tree.root)
        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stdout.contains(#"decision.message lacks "de""#), "\(run.stdout)")
    }

    /// `permit run` exits 1 when a step could not be carried out; the timeline still prints.
    @Test func runExitsOneWhenAStepCouldNotRun() async throws {
        let tree = Tree()
        tree.write(
            "s.yaml", "name: s\ndevice: { os: \"17.0\" }\nsteps:\n  - { event: app_launch }\n  - { answer: accept }\n")
        let run = try await CLITests.permit(["run", "policies/polite", tree.path("s.yaml")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let fine = Tree()
        fine.write("s.yaml", "name: s\ndevice: { os: \"17.0\" }\nsteps:\n  - { event: app_launch }\n")
        #expect(try await CLITests.permit(["run", "policies/polite", fine.path("s.yaml")]).status == 0)
    }

    @Test func decidePrintsTheTraceOnce() async throws {
        let tree = Tree()
        tree.write("p/policy.lua", #"return { name = "t", decide = function(ctx) print("seen once") return nil end }"#)
        let run = try await CLITests.permit(["decide", tree.path("p"), "--status", "not_determined", "--event", "app_launch"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.components(separatedBy: "seen once").count == 2, "\(run.stdout)")
    }

    /// `permit bundle` carries the copy, and `permit verify` accepts it.
    @Test func theBundleCarriesTheCopy() async throws {
        let tree = Tree()
        tree.write("README", "the bundle goes here")
        let out = tree.path("dose-alerts.bundle")
        let run = try await CLITests.permit(["bundle", Self.pack, "--version", "3", "--out", out])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("\"copy.json\":"))
    }
}
