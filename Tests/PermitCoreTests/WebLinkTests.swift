import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// A web link on a prompt, row or page (`link`, `url`) in the core: which addresses it may
/// open, the outcome the host reads (text and `URL` for the device's language), the answer
/// `link` that counts apart and leaves the prompt be, and the guardrails that leave it alone.
@Suite struct WebLinkTests {
    static let faq = WebLink(
        text: .translations(["en": "More about notifications", "de": "Mehr zu Mitteilungen"]),
        address: .translations(["en": "https://www.example.com/en/faq", "de": "https://www.example.com/de/faq"]))

    @Test(arguments: [
        "https://www.example.com/faq", "HTTPS://example.com", "https://example.com:8443/a?b=c#d", "https://xn--mnchen-3ya.de/",
        "https://example.com/%20a", "https://a.b/" + String(repeating: "x", count: 2_000 - 12),
    ])
    func aWebPageMayBeOpened(address: String) {
        #expect(WebLink.problem(with: address) == nil, "\(address)")
        #expect(WebLink(text: "T", address: .plain(address)).url?.absoluteString == address)
    }

    @Test(arguments: [
        ("http://www.example.com/faq", "https://"), ("javascript:alert(1)", "https://"), ("App-Prefs:root=NOTIFICATIONS_ID", "deep_link"),
        ("tel:+4930123", "https://"), ("sms:123", "https://"), ("/faq", "https://"), ("www.example.com", "https://"),
        ("https://", "https://"), ("https:///faq", "needs a host"), ("https://user@example.com/", "user name"),
        ("https://user:pw@example.com/", "user name"), ("https://example.com/a b", "percent-encode"),
        ("https://example.com/\n", "percent-encode"), ("https://münchen.de/", "percent-encode"),
        ("https://exa_mple.com/", "needs a host"), ("https://example.com:port/", "needs a host"),
        ("https://a.b/" + String(repeating: "x", count: 2_000 - 11), "2000 allowed"),
    ])
    func anythingElseIsRefusedWithWhatToDo(address: String, hint: String) {
        let problem = WebLink.problem(with: address)
        #expect(problem?.contains(hint) == true, "\(address): \(problem ?? "accepted")")
        #expect(WebLink(text: "T", address: .plain(address)).url == nil)
    }

    /// The outcome carries the link's text and page in the device's language, the page as a
    /// `URL`; the decision's fields name them as a policy does.
    @Test func theOutcomeCarriesTheLinkInTheDevicesLanguage() async throws {
        let prompt = SoftPrompt(title: "T", message: "M", accept: "A", decline: "D", id: "primer", link: Self.faq)
        let world = World(authorization: .notDetermined, locale: "de-DE", policy: always(.softPrompt(prompt)))
        let outcome = await world.engine.handle(.appLaunch)
        let link = try #require(outcome.decision.action.link)
        #expect(link.text == .plain("Mehr zu Mitteilungen"))
        #expect(link.url == URL(string: "https://www.example.com/de/faq"))
        #expect(outcome.decision.fields["link"] == .string("Mehr zu Mitteilungen"))
        #expect(outcome.decision.fields["url"] == .string("https://www.example.com/de/faq"))
    }

    /// A host's own decision is held to the same rule when its address is resolved: the
    /// outcome is `none` with an error naming `decision.url`.
    @Test func aHostsDecisionWithABadAddressIsAnError() async {
        let bad = WebLink(text: "More", address: .translations(["en": "https://example.com/", "fr": "tel:123"]))
        let page = InformPage(title: "T", message: "M", button: "OK", link: bad)
        let french = World(authorization: .denied, locale: "fr", policy: always(.inform(page)))
        let outcome = await french.engine.handle(.appLaunch)
        #expect(outcome.decision.action == .none)
        #expect(outcome.errors.map(\.field) == ["decision.url"])
        let english = await World(authorization: .denied, locale: "en", policy: always(.inform(page))).engine.handle(.appLaunch)
        #expect(english.errors.isEmpty)
        #expect(english.decision.action.link?.url == URL(string: "https://example.com/"))
    }

    /// `link` counts in each kind's `links` and nothing else: no accept, decline, open or
    /// dismissal, no inline action, no answer time; the answer carries the prompt's id.
    @Test func theLinkAnswerCountsApart() async {
        let seen = Locked<[String]>([])
        let soft = SoftPrompt(title: "T", message: "M", accept: "A", decline: "D", id: "primer", link: Self.faq)
        let row = SettingsPrompt(title: "T", message: "M", open: "O", cancel: nil, presentation: .inline, id: "row", link: Self.faq)
        let page = InformPage(title: "T", message: "M", button: "OK", id: "page", link: Self.faq)
        let policy = ClosurePolicy(name: "links") { context in
            seen.withLock { $0.append("\(context.event.name)=\(context.promptID ?? "-")") }
            switch context.event {
            case .appLaunch: return Decision(.softPrompt(soft))
            case .featureOpened("row"): return Decision(.settingsPrompt(row))
            case .featureOpened("page"): return Decision(.inform(page))
            default: return nil
            }
        }
        let world = World(authorization: .notDetermined, policy: policy)
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.softPromptAnswered(.link))
        _ = await world.engine.handle(.featureOpened("row"))
        _ = await world.engine.handle(.settingsPromptAnswered(.link))
        _ = await world.engine.handle(.featureOpened("page"))
        _ = await world.engine.handle(.informAnswered(.link))
        let history = await world.engine.history
        #expect(history.softPrompt.links == 1 && history.settingsPrompt.links == 1 && history.inform.links == 1)
        #expect(history.softPrompt.accepted + history.softPrompt.declined + history.softPrompt.dismissed == 0)
        #expect(history.softPrompt.lastAnsweredAt == nil)
        #expect(history.settingsPrompt.inlineActed == 0 && history.settingsPrompt.opened == 0)
        #expect(history.inform.ok + history.inform.dismissed + history.inform.opened == 0)
        #expect(
            seen.withLock { $0.filter { $0.contains("answered") } } == [
                "soft_prompt_answered=primer", "settings_prompt_answered=row", "inform_answered=page",
            ])
    }

    /// No guardrail voids or changes a link: a prompt with one is judged as without it.
    @Test func theGuardrailsLeaveALinkAlone() {
        let situation = GuardrailSituation(
            status: .notDetermined, settings: .typical(for: .notDetermined, on: version("15.0")), version: version("15.0"),
            appIsActive: true, promptsToday: 0, maxPromptsPerDay: 3)
        let soft = SoftPrompt(title: "T", message: "M", accept: "A", decline: "D", link: Self.faq)
        let page = InformPage(title: "T", message: "M", button: "OK", link: Self.faq)
        for action in [Decision.Action.softPrompt(soft), .inform(page)] {
            let applied = Guardrail.apply(to: action, in: situation)
            #expect(applied.action == action)
            #expect(applied.warnings.isEmpty)
        }
    }
}
