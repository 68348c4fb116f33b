import Foundation

/// A pack's copy: the texts its policy shows, by key, each with its translations, kept apart
/// from the logic (`copy/<locale>.yaml` in a pack, `copy.json` in a bundle; the policy reads
/// them with `permit.copy("key")`). A text may name values the policy fills in, `{app}`
/// (`CopyPlaceholders`); its braces are checked here, so a text that cannot be filled is
/// refused with the copy, not when a user would see it.
///
/// Why data and not code: a third language should not push a policy past the source cap
/// (`LuaLimits.maxSourceBytes`), translators edit flat files rather than Lua, and `permit check`
/// can name every key a locale lacks. Copy is bounded apart from the source (`maxBytes`,
/// `maxKeys`, `maxLocales`, `maxKeyBytes`, `maxTextBytes`), so a pack's texts cannot grow
/// the VM without limit; the policy reads it and never writes it.
public struct PolicyCopy: Sendable, Hashable {
    /// The texts of each locale, by key: `["en": ["welcome.title": "Stay in the loop"]]`.
    public private(set) var locales: [String: [String: String]]

    /// The most bytes of keys and texts in all the copy files together: 64 KiB, five times
    /// what the policy's own source may hold.
    public static let maxBytes = 64 << 10
    /// The most keys one locale may hold.
    public static let maxKeys = 1024
    /// The most locales (copy files) a pack may hold.
    public static let maxLocales = 32
    /// The longest key, in bytes.
    public static let maxKeyBytes = 128
    /// The longest text, in bytes: a decision's text cap.
    public static let maxTextBytes = TextCap.errorMessageBytes

    /// No copy: `permit.copy` then raises an error that says where copy goes.
    public static let empty = PolicyCopy()

    private init() { locales = [:] }

    /// Copy from the texts of each locale; the first bound it breaks is thrown, in words.
    public init(locales: [String: [String: String]]) throws(PolicyCopyError) {
        guard locales.count <= Self.maxLocales else {
            throw PolicyCopyError(locale: nil, key: nil, message: "\(locales.count) locales is more than the \(Self.maxLocales) allowed")
        }
        var bytes = 0
        for locale in locales.keys.sorted() {
            let texts = locales[locale]!
            guard Self.isLocaleTag(locale) else {
                throw PolicyCopyError(
                    locale: locale, key: nil, message: "\"\(locale)\" is not a locale tag like en, de or zh-Hans")
            }
            guard texts.count <= Self.maxKeys else {
                throw PolicyCopyError(locale: locale, key: nil, message: "\(texts.count) keys is more than the \(Self.maxKeys) allowed")
            }
            for key in texts.keys.sorted() {
                let text = texts[key]!
                if let problem = Self.keyProblem(key) { throw PolicyCopyError(locale: locale, key: key, message: problem) }
                guard text.utf8.count <= Self.maxTextBytes else {
                    throw PolicyCopyError(
                        locale: locale, key: key,
                        message: "the text is \(text.utf8.count) bytes; a text is at most \(Self.maxTextBytes)")
                }
                do {
                    _ = try CopyPlaceholders.names(in: text)
                } catch {
                    throw PolicyCopyError(locale: locale, key: key, message: error.message)
                }
                bytes += key.utf8.count + text.utf8.count
            }
        }
        guard bytes <= Self.maxBytes else {
            throw PolicyCopyError(
                locale: nil, key: nil,
                message: "the copy is \(bytes) bytes of keys and texts; a pack's copy is at most \(Self.maxBytes) (PolicyCopy.maxBytes)")
        }
        self.locales = locales
    }

    /// Whether the pack has no copy.
    public var isEmpty: Bool { locales.isEmpty }

    /// Every key of any locale, sorted.
    public var keys: [String] { Set(locales.values.flatMap(\.keys)).sorted() }

    /// The translations of `key` by locale (only the locales that have it).
    public func translations(of key: String) -> [String: String] {
        locales.compactMapValues { $0[key] }
    }

    /// The keys each of `declared` lacks (a locale without a file lacks every key), by locale,
    /// sorted: what `permit check` reports.
    public func missing(in declared: [String]) -> [(locale: String, key: String)] {
        let all = keys
        return declared.flatMap { locale in
            all.filter { locales[locale]?[$0] == nil }.map { (locale, $0) }
        }
    }

    /// Why `key` cannot be a key, or `nil`: 1 to 128 bytes of letters, digits, `_`, `-`, `.`.
    public static func keyProblem(_ key: String) -> String? {
        guard (1...maxKeyBytes).contains(key.utf8.count) else {
            return "a key is 1 to \(maxKeyBytes) bytes, got \(key.utf8.count)"
        }
        guard
            key.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0)) })
        else {
            return "\"\(key)\" is not a key: use letters, digits, _ - and . (like welcome.title)"
        }
        return nil
    }

    /// Whether `tag` reads as a BCP 47 tag (`en`, `pt-BR`, `zh-Hans`): letters and digits in
    /// parts of 1 to 8 joined by `-`, the first of letters.
    public static func isLocaleTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// The copy as bundles carry it (`copy.json`): `{"de":{"key":"text"},"en":{...}}`, keys
    /// sorted, so that equal copy is equal bytes.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(locales)) ?? Data("{}".utf8)
    }

    /// The copy of a bundle's `copy.json`, held to the same bounds as a pack's files.
    public static func decode(_ data: Data) throws(PolicyCopyError) -> PolicyCopy {
        let locales: [String: [String: String]]
        do {
            locales = try JSONDecoder().decode([String: [String: String]].self, from: data)
        } catch {
            throw PolicyCopyError(locale: nil, key: nil, message: "copy.json is not a table of texts by locale and key")
        }
        return try PolicyCopy(locales: locales)
    }
}
