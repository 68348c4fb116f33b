import Foundation
import PermitTestSupport
import Testing

/// Texts that name the app: the pack under Tests/packs/app-name (`{app}` filled from
/// `ctx.app.name` in English and German, `{{app}}`, a host without a name), `permit check`'s
/// placeholder checks with file, line and key, and `device.app_name` in scenarios.
@Suite struct AppNameCopyTests {
    static let pack = "Tests/packs/app-name"

    /// The pack's scenarios pass; `permit check`'s probes find the one text filled without a
    /// fallback, which a host that gives no name would make fail.
    @Test func thePackPassesAndCheckFindsTheTextWithoutAFallback() async throws {
        let run = try await CLITests.permit(["test", Self.pack])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("3 passed"), "\(run.stdout)")
        let check = try await CLITests.permit(["check", Self.pack])
        #expect(check.status == 2, "\(check.stdout)")
        let errors = check.stdout.split(separator: "\n").filter { $0.hasPrefix("error") }
        #expect(errors.count == 1, "\(check.stdout)")
        #expect(errors.first?.contains(#"permit.copy("about.title"): the "#) == true, "\(check.stdout)")
        #expect(errors.first?.contains(#" text has {app}, which no value fills"#) == true, "\(check.stdout)")
    }

    static func pack(en: String, de: String) -> Tree {
        RealAppsPackTests.pack(
            policy: #"return { name = "c", locales = { "en", "de" }, decide = function(ctx) return nil end }"#,
            copy: ["en.yaml": en, "de.yaml": de])
    }

    /// A translation that drops a placeholder or misspells it is an error naming its file,
    /// line and key, and what the first language's text has.
    @Test func checkNamesATranslationWhosePlaceholdersDiffer() async throws {
        let tree = Self.pack(
            en: "a: From {app}\nb: \"{n} of {total}\"\nc: Plain\n",
            de: "a: Von {ap}\nb: \"{n} von {total}\"\nc: \"{app} sagt\"\n")
        let run = try await CLITests.permit(["check", tree.path("p")], in: tree.root)
        #expect(run.status == 2, "\(run.stdout)")
        let errors = run.stdout.split(separator: "\n").filter { $0.hasPrefix("error") }
        #expect(
            errors == [
                "error p/copy/de.yaml:1:4: a: the text lacks {app} and has {ap}, unlike en.yaml's text of this key; "
                    + "every language's text of a key uses the same placeholders, spelt alike ({app}): the policy fills them by name",
                "error p/copy/de.yaml:3:4: c: the text has {app}, unlike en.yaml's text of this key; "
                    + "every language's text of a key uses the same placeholders, spelt alike (none): the policy fills them by name",
            ], "\(run.stdout)")
    }

    /// The first of the policy's `locales` is the one the others follow.
    @Test func theFirstDeclaredLocaleIsTheReference() async throws {
        let tree = RealAppsPackTests.pack(
            policy: #"return { name = "c", locales = { "de", "en" }, decide = function(ctx) return nil end }"#,
            copy: ["en.yaml": "a: From {app}\n", "de.yaml": "a: Von uns\n"])
        let run = try await CLITests.permit(["check", tree.path("p")], in: tree.root)
        #expect(run.stdout.contains("error p/copy/en.yaml:1:4: a: the text has {app}, unlike de.yaml's text"), "\(run.stdout)")
    }

    /// A brace that is no placeholder and no escape is refused where the copy is read.
    @Test(arguments: [
        ("a: From {app\n", "a { that starts no placeholder"),
        ("a: From app}\n", "a lone } in the text"),
    ])
    func anUnbalancedBraceIsAnErrorWithItsLine(en: String, problem: String) async throws {
        let tree = Self.pack(en: "x: X\n" + en, de: "x: X\na: A\n")
        let run = try await CLITests.permit(["check", tree.path("p")], in: tree.root)
        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stdout.contains("error p/copy/en.yaml:2: a: \(problem)"), "\(run.stdout)")
    }

    /// `device.app_name` is one line of text; anything else is an error naming file, line and field.
    @Test(arguments: [
        ("app_name: [Loop]", "device.app_name: expected the app's name, got a list"),
        ("app_name: \"\"", "device.app_name: \"\" is not an app's name"),
        ("app_name: \"Two\\nlines\"", "is not an app's name"),
        ("app_nam: Loop", "app_nam"),
    ])
    func aBadAppNameIsAnErrorWithItsLine(field: String, message: String) async throws {
        let tree = Tree()
        tree.write("s.yaml", "name: s\ndevice:\n  os: \"17.0\"\n  \(field)\nsteps:\n  - { event: app_launch }\n")
        let run = try await CLITests.permit(["run", "policies/polite", tree.path("s.yaml")])
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        let output = run.stdout + run.stderr
        #expect(output.contains("s.yaml:4:"), "\(output)")
        #expect(output.contains(message), "\(output)")
    }
}
