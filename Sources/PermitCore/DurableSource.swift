/// The engine's durable part and what it was built from: the policy's durable keys, the
/// ledger's asked-flag, its three histories and its state.
///
/// `Ledger.durablePart(keeping:)` is a pure function of these, and most events (a feature
/// opened, a launch, a custom event) change none of them, so the part built last is the
/// answer until one of them changes. They are compared in full, never hashed or assumed. The
/// time last seen is not among them: the engine sets it on the part each time, as before.
struct DurableSource {
    private var keys = DurableKeys.none
    private var legacyRegistered = false
    private var softPrompt = Ledger.SoftPromptHistory()
    private var systemPrompt = Ledger.SystemPromptHistory()
    private var settingsPrompt = Ledger.SettingsPromptHistory()
    private var state: [String: PolicyValue] = [:]
    /// The part built from the values above; `nil` until one is built.
    private var built: DurableLedger?

    /// `ledger.durablePart(keeping: keys)`, built again only when what it is made of changed
    /// since the last call. The ledger is lent `inout` so that it is read in place, not copied.
    mutating func part(of ledger: inout Ledger, keeping keys: DurableKeys) -> DurableLedger {
        // The state counts only when the policy keeps some of it: comparing two equal
        // dictionaries held in different storage looks up every key.
        if let built, self.keys == keys, legacyRegistered == ledger.legacyRegistered,
           softPrompt == ledger.softPrompt, systemPrompt == ledger.systemPrompt,
           settingsPrompt == ledger.settingsPrompt, keys.state.isEmpty || state == ledger.state {
            return built
        }
        self.keys = keys
        legacyRegistered = ledger.legacyRegistered
        softPrompt = ledger.softPrompt
        systemPrompt = ledger.systemPrompt
        settingsPrompt = ledger.settingsPrompt
        state = keys.state.isEmpty ? [:] : ledger.state
        let part = ledger.durablePart(keeping: keys)
        built = part
        return part
    }
}
