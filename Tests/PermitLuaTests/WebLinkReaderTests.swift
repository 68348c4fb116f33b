import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `link` and `url` as a Lua policy writes them, read alike by the in-place reader (the warm
/// path) and `DecisionReader` (the general path, which words every refusal), and the
/// `links` counts a policy reads back.
@Suite struct WebLinkReaderTests {
    static let faq = "https://www.example.com/faq"

    /// Each decision with a link, on the warm path and (a second value sends it there) the
    /// general one, gives the same action.
    @Test(arguments: [
        (
            #"{ action = "soft_prompt", title = "T", message = "M", accept = "A", decline = "D", "#
                + #"link = "More", url = "https://www.example.com/faq" }"#,
            Decision.Action.softPrompt(
                SoftPrompt(
                    title: "T", message: "M", accept: "A", decline: "D", link: WebLink(text: "More", address: "https://www.example.com/faq")
                ))
        ),
        (
            #"{ action = "settings_prompt", presentation = "inline", title = "T", message = "M", open = "O", "#
                + #"link = { en = "FAQ", de = "FAQ" }, "#
                + #"url = { en = "https://example.com/en/faq", de = "https://example.com/de/faq?x=1#a" } }"#,
            .settingsPrompt(
                SettingsPrompt(
                    title: "T", message: "M", open: "O", cancel: nil, presentation: .inline,
                    link: WebLink(
                        text: .translations(["en": "FAQ", "de": "FAQ"]),
                        address: .translations(["en": "https://example.com/en/faq", "de": "https://example.com/de/faq?x=1#a"]))))
        ),
        (
            #"{ action = "inform", title = "T", message = "M", button = "OK", open = "S", link = "More", "#
                + #"url = "HTTPS://example.com:8443/a" }"#,
            .inform(
                InformPage(
                    title: "T", message: "M", button: "OK", open: "S", link: WebLink(text: "More", address: "HTTPS://example.com:8443/a")))
        ),
    ])
    func aLinkIsReadAlikeOnBothPaths(source: String, action: Decision.Action) throws {
        for body in ["return \(source)", "return \(source), 'a second value takes the general path'"] {
            let policy = try PagesAndPromptIDsLuaTests.policy(body)
            #expect(try policy.decide(PagesAndPromptIDsLuaTests.context())?.action == action, "\(body)")
        }
    }

    /// A link without its address, an address without its link, a link on a label and every
    /// address that is no https page is refused on both paths, naming the field.
    @Test(arguments: [
        (#"link = "More""#, "decision.url", "a link needs the address"),
        (#"url = "https://www.example.com/faq""#, "decision.link", "a url needs the text"),
        (#"link = "More", url = "http://www.example.com/faq""#, "decision.url", "absolute https://"),
        (#"link = "More", url = "javascript:alert(1)""#, "decision.url", "deep_link"),
        (#"link = "More", url = "App-Prefs:root=NOTIFICATIONS_ID""#, "decision.url", "https://"),
        (#"link = "More", url = "tel:+4930123""#, "decision.url", "https://"),
        (#"link = "More", url = "/faq""#, "decision.url", "https://"),
        (#"link = "More", url = "https://www.example.com/a faq""#, "decision.url", "percent-encode"),
        (#"link = "More", url = "https://user:pw@www.example.com/""#, "decision.url", "user name"),
        (#"link = "More", url = "https:///faq""#, "decision.url", "needs a host"),
        (#"link = "More", url = "https://""#, "decision.url", "https://"),
        (#"link = "More", url = "https://example.com/" .. string.rep("a", 2000)"#, "decision.url", "2000 allowed"),
        (#"link = "More", url = { en = "https://example.com/", de = "http://example.de/" }"#, #"decision.url["de"]"#, "https://"),
        (#"link = "More", url = 5"#, "decision.url", "expected a string"),
        (#"link = 5, url = "https://www.example.com/faq""#, "decision.link", "expected a string"),
    ])
    func aBadLinkIsNamed(fields: String, field: String, message: String) throws {
        let prompts = [
            #"action = "soft_prompt", title = "T", message = "M", accept = "A", decline = "D""#,
            #"action = "settings_prompt", presentation = "inline", title = "T", message = "M", open = "O""#,
            #"action = "inform", title = "T", message = "M", button = "OK""#,
        ]
        for prompt in prompts {
            try Self.expectRefusal("{ \(prompt), \(fields) }", field: field, message: message)
        }
    }

    /// A label has nothing to tap: a link on one is refused as `open` on one is.
    @Test func aLabelCarriesNoLink() throws {
        try Self.expectRefusal(
            #"{ action = "inform", presentation = "inline", title = "Notifications: Off", link = "More", url = "https://example.com/" }"#,
            field: "decision.link", message: "a label row has nothing to tap")
        try Self.expectRefusal(
            #"{ action = "inform", presentation = "inline", title = "Off", url = "https://example.com/" }"#, field: "decision.url",
            message: "a label row has nothing to tap")
        try Self.expectRefusal(
            #"{ action = "request_permission", link = "More", url = "https://example.com/" }"#, field: "decision.link",
            message: "not a field of a request_permission decision")
    }

    static func expectRefusal(_ source: String, field: String, message: String) throws {
        for body in ["return \(source)", "return \(source), 'a second value takes the general path'"] {
            let policy = try PagesAndPromptIDsLuaTests.policy(body)
            do {
                _ = try policy.decide(PagesAndPromptIDsLuaTests.context())
                Issue.record("\(source) was accepted")
            } catch {
                #expect(error.field == field, "\(source): \(error)")
                #expect(error.message.contains(message), "\(source): \(error)")
            }
        }
    }

    /// `ctx.event.answer` is `link` and each history counts its links.
    @Test func aPolicyReadsTheLinkAnswerAndTheCounts() throws {
        let policy = try PagesAndPromptIDsLuaTests.policy(
            """
            local h = ctx.history
            return { action = "none", reason = tostring(ctx.event.prompt_id) .. " " .. tostring(ctx.event.answer) .. " "
              .. h.soft_prompt.links .. " " .. h.settings_prompt.links .. " " .. h.inform.links }
            """)
        var ledger = Ledger()
        ledger.softPrompt.links = 1
        ledger.settingsPrompt.links = 2
        ledger.inform.links = 3
        let context = PagesAndPromptIDsLuaTests.context(.informAnswered(.link), promptID: "faq", ledger: ledger)
        #expect(try policy.decide(context)?.reason == "faq link 1 2 3")
        #expect(try policy.decide(PagesAndPromptIDsLuaTests.context(.softPromptAnswered(.link)))?.reason == "nil link 0 0 0")
    }
}
