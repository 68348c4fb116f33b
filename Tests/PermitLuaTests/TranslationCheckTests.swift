import Testing

@testable import PermitCore
@testable import PermitLua

@Suite struct TranslationCheckTests {
    @Test(arguments: ["en", "fr", "zh-Hans", "zh-Hans-CN", "pt-BR", "es-419", "yue"])
    func languageTagsAreAccepted(tag: String) { #expect(TranslationCheck.isLanguageTag(tag)) }

    @Test(arguments: ["en_US", "EN", "english", "", "zh-", "en-USA-x", "e"])
    func otherKeysAreNot(tag: String) { #expect(!TranslationCheck.isLanguageTag(tag)) }

    /// A settings row that is its own button has no `open` text to translate; its other texts
    /// are still checked in every declared locale.
    @Test func aRowWithoutOpenIsAskedForNoOpenText() {
        let row = SettingsPrompt(
            title: .translations(["en": "Off", "de": "Aus"]), message: .translations(["en": "Fix now"]), open: nil, cancel: nil,
            presentation: .inline)
        let problems = TranslationCheck.problems(of: Decision(.settingsPrompt(row), reason: "row"), locales: ["en", "de"])
        #expect(!problems.contains { $0.contains("decision.open") }, "\(problems)")
        #expect(problems.contains { $0.contains("decision.message has no \"de\" translation") }, "\(problems)")
    }
}
