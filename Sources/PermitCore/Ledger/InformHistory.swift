extension Ledger {
    /// `ctx.history.inform`: the app's information pages and label rows (`action = "inform"`),
    /// counted as the prompts are (shown, and each answer), though none is a prompt.
    public struct InformHistory: Sendable, Hashable, Codable {
        /// Times a page or row was put on screen.
        public var shown = 0
        /// Times the user tapped its button (`inform_answered` with `ok`).
        public var ok = 0
        /// Times it was dismissed without the button (`inform_answered` with `dismiss`).
        public var dismissed = 0
        /// Times the user tapped its `open` button (`inform_answered` with `open`): Settings
        /// opened and the page stayed, so `ok` or `dismissed` counts it again when it closes.
        public var opened = 0
        /// Times the user opened its web link (`inform_answered` with `link`): the page stayed.
        public var links = 0
        /// When last shown.
        public var lastShownAt: Int64?

        /// Never shown.
        public init() {}

        private enum CodingKeys: String, CodingKey {
            case shown, ok, dismissed, opened, links
            case lastShownAt = "last_shown_at"
        }

        /// Decodes leniently: a missing count is zero (ledgers written before pages, or their
        /// `open` button, existed).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            shown = try c.decodeIfPresent(Int.self, forKey: .shown) ?? 0
            ok = try c.decodeIfPresent(Int.self, forKey: .ok) ?? 0
            dismissed = try c.decodeIfPresent(Int.self, forKey: .dismissed) ?? 0
            opened = try c.decodeIfPresent(Int.self, forKey: .opened) ?? 0
            links = try c.decodeIfPresent(Int.self, forKey: .links) ?? 0
            lastShownAt = try c.decodeIfPresent(Int64.self, forKey: .lastShownAt)
        }

        /// Each counter with its name, for the ledger's check that none is negative.
        func checkCounters(_ check: (Int, String) -> Void) {
            check(shown, "shown")
            check(ok, "ok")
            check(dismissed, "dismissed")
            check(opened, "opened")
            check(links, "links")
        }
    }
}
