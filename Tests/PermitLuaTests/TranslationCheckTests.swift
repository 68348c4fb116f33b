import Testing

@testable import PermitLua

@Suite struct TranslationCheckTests {
    @Test(arguments: ["en", "fr", "zh-Hans", "zh-Hans-CN", "pt-BR", "es-419", "yue"])
    func languageTagsAreAccepted(tag: String) { #expect(TranslationCheck.isLanguageTag(tag)) }

    @Test(arguments: ["en_US", "EN", "english", "", "zh-", "en-USA-x", "e"])
    func otherKeysAreNot(tag: String) { #expect(!TranslationCheck.isLanguageTag(tag)) }
}
