/// A text field of a decision or reminder: one string, or translations keyed by locale.
public enum LocalizedText: Sendable, Hashable, CustomStringConvertible {
    /// One text for every locale.
    case plain(String)
    /// Keys are BCP 47 tags (`en`, `zh-Hans`, `pt-BR`).
    case translations([String: String])

    /// Picks the text for `locale`: the exact tag, then language-script (`zh-Hans` for
    /// `zh-Hans-CN`), then the language (`zh`), then `en`. `nil` when none of these exist.
    public func resolved(for locale: String) -> String? {
        resolved(along: LocalizedText.fallbackChain(for: locale))
    }

    /// The text for the first tag of `chain` (a `fallbackChain`) that has one: for callers that
    /// resolve many texts for one locale and work the chain out once.
    public func resolved(along chain: [String]) -> String? {
        switch self {
        case .plain(let text):
            return text
        case .translations(let table) where table.count <= Self.scannedTranslations:
            // A few translations: their keys compared, which for short tags is a word compare,
            // where a lookup hashes the tag first (about 300 instructions a text).
            for candidate in chain {
                if let entry = table.first(where: { $0.key == candidate }) { return entry.value }
            }
            return nil
        case .translations(let table):
            for candidate in chain {
                if let text = table[candidate] { return text }
            }
            return nil
        }
    }

    /// Up to this many translations, `resolved(along:)` compares keys instead of hashing.
    static let scannedTranslations = 8

    /// The tags tried for `locale`, most specific first, without duplicates.
    /// `zh-Hans-CN` → `zh-Hans-CN`, `zh-Hans`, `zh`, `en`; `pt_BR` → `pt-BR`, `pt`, `en`.
    public static func fallbackChain(for locale: String) -> [String] {
        if let known = knownChains.withLock({ $0[locale] }) { return known }
        let chain = workOutFallbackChain(for: locale)
        knownChains.withLock { chains in
            if chains.count >= knownChainsKept { chains.removeAll() }
            chains[locale] = chain
        }
        return chain
    }

    /// The chains worked out so far, by locale. Every engine works one out when it starts, and
    /// a simulation starts an engine per user, over a handful of locales; splitting and
    /// de-duplicating each time cost more than the user's first event in a debug build.
    private static let knownChains = Locked<[String: [String]]>([:])
    private static let knownChainsKept = 64

    private static func workOutFallbackChain(for locale: String) -> [String] {
        let normalized = locale.replacingUnderscores()
        let parts = normalized.split(separator: "-").map(String.init)
        var chain: [String] = [normalized]
        if parts.count >= 2, parts[1].count == 4 {  // a script subtag: Hans, Hant, Latn
            chain.append(parts[0] + "-" + parts[1])
        }
        if let language = parts.first { chain.append(language) }
        chain.append("en")
        var seen = Set<String>()
        return chain.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// The plain text, or the translations sorted by locale (for reports).
    public var description: String {
        switch self {
        case .plain(let text): text
        case .translations(let table):
            table.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: " | ")
        }
    }
}

/// `"Allow"` in Swift code is a plain text: hosts that write policies in Swift stay readable.
extension LocalizedText: ExpressibleByStringLiteral {
    /// A plain text, so Swift callers can write a string literal.
    public init(stringLiteral value: String) { self = .plain(value) }
}

extension String {
    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
