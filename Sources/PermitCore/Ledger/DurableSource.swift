/// The engine's durable part and what it was built from: the policy's durable keys, the
/// ledger's asked-flag, its three histories and its state.
///
/// `Ledger.durablePart(keeping:)` is a pure function of these, and most events (a feature
/// opened, a launch, a custom event) change none of them, so the part built last is the
/// answer until one of them changes. They are compared in full, never hashed or assumed. The
/// time last seen is not among them: it is set on the part at every save, as before.
///
/// The part is kept, stamped and compared with the stored one in place, and the stored one is
/// kept here too: handed out or passed in on every event, their copies (and the copies'
/// destruction) cost more than the comparison.
struct DurableSource {
    /// The durable part as last stored, so an unchanged part is not written again.
    private(set) var stored: DurableLedger
    private var keys = DurableKeys.none
    private var legacyRegistered = false
    private var softPrompt = Ledger.SoftPromptHistory()
    private var systemPrompt = Ledger.SystemPromptHistory()
    private var settingsPrompt = Ledger.SettingsPromptHistory()
    private var state: [String: PolicyValue] = [:]
    /// The part built from the values above; meaningless until `isBuilt`.
    private var built = DurableLedger()
    private var isBuilt = false

    /// A source whose store holds `stored` (an empty part when it holds nothing).
    init(stored: DurableLedger) { self.stored = stored }

    /// Whether `part` (`ledger.durablePart(keeping: keys)` stamped with `lastSeenAt`, the stored
    /// part's time when `nil`) should be written: it differs from `stored` and one of the two
    /// holds something. Once the store took it, `written()` says so.
    /// The part is built again only when what it is made of changed since the last call; the
    /// ledger is lent `inout` so that it is read in place, not copied. A `Bool` and not the
    /// part: an optional part returned on every event was copied out and back (two `memcpy`s
    /// of the whole part).
    mutating func hasPartToWrite(of ledger: inout Ledger, keeping keys: DurableKeys, lastSeenAt: Int64?) -> Bool {
        rebuildIfChanged(from: &ledger, keeping: keys)
        built.lastSeenAt = lastSeenAt ?? stored.lastSeenAt
        return built != stored && !(built.isEmpty && stored.isEmpty)
    }

    /// The part the last `hasPartToWrite` built.
    var part: DurableLedger { built }

    /// The store took `part`: it is what the store holds now.
    mutating func written() { stored = built }

    private mutating func rebuildIfChanged(from ledger: inout Ledger, keeping keys: DurableKeys) {
        // The state counts only when the policy keeps some of it: comparing two equal
        // dictionaries held in different storage looks up every key.
        if isBuilt, self.keys == keys, legacyRegistered == ledger.legacyRegistered,
            softPrompt == ledger.softPrompt, systemPrompt == ledger.systemPrompt,
            settingsPrompt == ledger.settingsPrompt, keys.state.isEmpty || state == ledger.state
        {
            return
        }
        self.keys = keys
        legacyRegistered = ledger.legacyRegistered
        softPrompt = ledger.softPrompt
        systemPrompt = ledger.systemPrompt
        settingsPrompt = ledger.settingsPrompt
        state = keys.state.isEmpty ? [:] : ledger.state
        built = ledger.durablePart(keeping: keys)
        isBuilt = true
    }
}
