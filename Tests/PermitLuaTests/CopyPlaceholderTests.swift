import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// Placeholders in copy (`{app}`, filled by `permit.copy("key", { app = ... })`), `{{` and `}}`
/// for braces, and `ctx.app.name`: filled in every language, refused with the key, the locale
/// and the placeholder when no value fills one, and charged by the bytes they walk and write.
@Suite struct CopyPlaceholderTests {
    static let copy = try! PolicyCopy(locales: [
        "en": [
            "delayed": "To avoid delay in receiving notifications from {app}, choose Immediate.",
            "braces": "{{app}} stays {{ and }}, {app} does not",
            "count": "{n} of {total} from {app}",
            "plain": "No placeholder here",
            "named": "{name} {version}",
        ],
        "de": [
            "delayed": "Um Verzögerungen bei Mitteilungen von {app} zu vermeiden, wähle Sofort.",
            "braces": "{{app}} bleibt, {app} nicht",
            "count": "{app}: {n} von {total}",
            "plain": "Kein Platzhalter",
            "named": "{name} {version}",
        ],
    ])

    static func policy(_ body: String, copy: PolicyCopy = copy) throws(PolicyError) -> LuaPolicy {
        try LuaPolicy(source: "return { name = \"fill\", decide = function(ctx)\n\(body)\nend }", chunkName: "fill.lua", copy: copy)
    }

    static func context(app: AppInfo = AppInfo()) -> PolicyContext {
        CopyAndVersionTests.context(app: app)
    }

    /// The message of the error `body` raises, or a note that it raised none.
    static func error(of body: String, app: AppInfo = AppInfo()) throws -> String {
        let policy = try Self.policy(body)
        do {
            let decision = try policy.decide(Self.context(app: app))
            return "no error: \(String(describing: decision))"
        } catch {
            return error.message
        }
    }

    /// One value fills every language's text; numbers are written as Lua writes them.
    @Test func aPlaceholderIsFilledInEveryLanguage() throws {
        let policy = try Self.policy(
            """
            local d = permit.copy("delayed", { app = ctx.app.name })
            local c = permit.copy("count", { app = "Loop", n = 3, total = 4.5 })
            local p = permit.copy("plain", { app = "unused" })
            return { action = "none", reason = d.en .. "|" .. d.de .. "|" .. c.en .. "|" .. c.de .. "|" .. p.de }
            """)
        let reason = try policy.decide(Self.context(app: AppInfo(name: "FreeAPS")))?.reason
        #expect(
            reason
                == "To avoid delay in receiving notifications from FreeAPS, choose Immediate."
                + "|Um Verzögerungen bei Mitteilungen von FreeAPS zu vermeiden, wähle Sofort."
                + "|3 of 4.5 from Loop|Loop: 3 von 4.5|Kein Platzhalter")
    }

    /// A read-only table of the context serves as the values, as a plain table does.
    @Test func aReadOnlyTableOfTheContextGivesValues() throws {
        let policy = try Self.policy(#"return { action = "none", reason = permit.copy("named", ctx.app).de }"#)
        #expect(try policy.decide(Self.context(app: AppInfo(version: "3.5.0", name: "Loop")))?.reason == "Loop 3.5.0")
    }

    @Test func doubledBracesAreBraces() throws {
        let policy = try Self.policy(
            """
            local b = permit.copy("braces", { app = "Loop" })
            return { action = "none", reason = b.en .. "|" .. b.de }
            """)
        #expect(try policy.decide(Self.context())?.reason == "{app} stays { and }, Loop does not|{app} bleibt, Loop nicht")
    }

    /// `ctx.app.name` is what the host gave, nil when it gave none.
    @Test func ctxAppNameIsTheHostsName() throws {
        let policy = try Self.policy(#"return { action = "none", reason = tostring(ctx.app.name) }"#)
        #expect(try policy.decide(Self.context())?.reason == "nil")
        #expect(try policy.decide(Self.context(app: AppInfo(version: "3.5.0", name: "Loop")))?.reason == "Loop")
    }

    /// A placeholder without a value is an error naming the key, the locale and the
    /// placeholder: a user never sees a raw `{app}`.
    @Test func aPlaceholderWithoutAValueIsAnError() throws {
        let none = try Self.error(of: #"return { action = "none", reason = permit.copy("delayed").en }"#)
        #expect(
            [
                #"permit.copy("delayed"): the de text has {app}, which no value fills"#,
                #"permit.copy("delayed"): the en text has {app}, which no value fills"#,
            ].contains { none.contains($0) }, "\(none)")
        #expect(none.contains(#"permit.copy("delayed", { app = ... })"#), "\(none)")
        let nilName = try Self.error(of: #"return { action = "none", reason = permit.copy("delayed", { app = ctx.app.name }).en }"#)
        #expect(nilName.contains("text has {app}, which no value fills"), "\(nilName)")
        let partial = try Self.error(of: #"return { action = "none", reason = permit.copy("count", { app = "Loop", n = 1 }).en }"#)
        #expect(partial.contains("text has {total}, which no value fills"), "\(partial)")
    }

    @Test func aValueThatIsNotAStringOrANumberIsAnError() throws {
        for (value, kind) in [("true", "boolean"), ("{}", "table"), ("print", "function")] {
            let message = try Self.error(of: "return { action = \"none\", reason = permit.copy(\"delayed\", { app = \(value) }).en }")
            #expect(
                message.contains(#"permit.copy("delayed"): the value of {app} is a \#(kind); give a string or a number"#),
                "\(message)")
        }
        let positional = try Self.error(of: #"return { action = "none", reason = permit.copy("delayed", { "Loop" }).en }"#)
        #expect(positional.contains("the values are named, like { app = ctx.app.name }; a key of the table is a number"), "\(positional)")
        let notATable = try Self.error(of: #"return { action = "none", reason = permit.copy("delayed", "Loop").en }"#)
        #expect(notATable.contains("the values are a table like { app = ctx.app.name }, got a string"), "\(notATable)")
    }

    /// A brace out of place is refused with the copy, naming the locale and the key.
    @Test(arguments: [
        ("Open {app", "a { that starts no placeholder"),
        ("Open {App}", "a { that starts no placeholder"),
        ("Open { app }", "a { that starts no placeholder"),
        ("Open {}", "a { that starts no placeholder"),
        ("Open {9lives}", "a { that starts no placeholder"),
        ("Open app}", "a lone } in the text"),
        ("Open {app}}", "a lone } in the text"),
    ])
    func aBraceOutOfPlaceIsRefused(text: String, problem: String) {
        #expect(throws: CopyPlaceholders.Problem.self) { try CopyPlaceholders.names(in: text) }
        do {
            _ = try PolicyCopy(locales: ["en": ["ok": "Fine"], "de": ["open": text]])
            Issue.record("\(text): no error")
        } catch {
            #expect(error.locale == "de")
            #expect(error.key == "open")
            #expect(error.message.contains(problem), "\(error)")
        }
    }

    @Test func theNamesOfATextsPlaceholders() throws {
        #expect(try CopyPlaceholders.names(in: "Hi {name}, {app} says {{hi}} to {name} {a_1}") == ["name", "app", "a_1"])
        #expect(try CopyPlaceholders.names(in: "{{}} {{{app}}}") == ["app"])
        #expect(try CopyPlaceholders.names(in: "Grüße ✓") == [])
    }

    /// Each placeholder is charged for its lookup, beyond the bytes of its text: a text of
    /// many placeholders filled with nothing (which allocates nothing) still costs its work.
    @Test func eachPlaceholderIsCharged() throws {
        let vm = LuaVM(limits: testLimits)
        try vm.setCopy(try PolicyCopy(locales: ["en": ["many": String(repeating: "{v}", count: 600)]]))
        #expect(try run(vm, "return #permit.copy('many', { v = '' }).en") == [.integer(0)])
        #expect(vm.instructionsUsedByLastCall >= 600 * 20, "\(vm.instructionsUsedByLastCall)")
        #expect(try run(vm, "return #permit.copy('many', { v = 'ab' }).en") == [.integer(1200)])
    }

    /// What filling writes is held to the VM's bounds like any string the script builds: a
    /// short text with many placeholders cannot write 39 MB.
    @Test func aFillPastTheBoundsIsRefused() throws {
        let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 0))
        try vm.setCopy(try PolicyCopy(locales: ["en": ["many": String(repeating: "{v}", count: 600)]]))
        let e = failure(vm, "local v = string.rep('x', 1 << 16) return #permit.copy('many', { v = v }).en")
        #expect(
            [.stringTooLarge, .memoryExhausted, .instructionBudgetExceeded].contains(e?.kind), "\(String(describing: e))")
        expectHealthy(vm)
    }
}
