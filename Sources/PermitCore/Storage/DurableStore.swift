/// Where the part of the ledger that survives a reinstall lives (the Keychain on iOS,
/// `KeychainDurableStore`; memory in tests, scenarios and simulations).
///
/// Like a `LedgerStore`, `load` never fails: a damaged item is reported and treated as absent,
/// because a reinstall that forgets is the platform's own default. One that cannot be read at
/// all (the Keychain is locked) is `unavailable`, not absent: the engine then waits for it, so
/// that a stored refusal is neither forgotten nor overwritten.
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
    /// Human-readable reports: an item from a newer build, damaged bytes.
    public var warnings: [String]
    /// Why the store could not be read, when it could not (the Keychain answered with an
    /// error other than "no such item", such as the device being locked); `durable` is then
    /// `nil` and says nothing of what is stored.
    public var unavailable: String?

    /// A loaded durable part.
    public init(durable: DurableLedger?, warnings: [String] = [], unavailable: String? = nil) {
        self.durable = durable
        self.warnings = warnings
        self.unavailable = unavailable
    }
}
