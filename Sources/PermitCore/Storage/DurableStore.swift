/// Where the part of the ledger that survives a reinstall lives (the Keychain on iOS,
/// `KeychainDurableStore`; memory in tests, scenarios and simulations).
///
/// Like a `LedgerStore`, `load` never fails: a damaged or unreadable item is reported and
/// treated as absent, because a reinstall that forgets is the platform's own default.
public protocol DurableStore: Sendable {
    /// The stored durable part, or `nil` when there is none; problems go to `warnings`.
    func loadDurable() -> DurableLoadResult
    /// Stores the durable part (an empty one removes the item).
    func saveDurable(_ durable: DurableLedger) throws(LedgerStoreError)
}

/// A loaded durable part and what went wrong on the way.
public struct DurableLoadResult: Sendable {
    /// What was stored, if anything usable was.
    public var durable: DurableLedger?
    /// Human-readable reports: an item from a newer build, damaged bytes, a Keychain error.
    public var warnings: [String]

    /// A loaded durable part.
    public init(durable: DurableLedger?, warnings: [String] = []) {
        self.durable = durable
        self.warnings = warnings
    }
}
