/// Keeps the durable part in memory: the simulated device's Keychain, which outlives a
/// scenario's or a simulated user's reinstall because the device, not the app, owns it.
public final class InMemoryDurableStore: DurableStore {
    private let stored: Locked<DurableLedger?>

    /// A store holding `durable`, if given.
    public init(_ durable: DurableLedger? = nil) { stored = Locked(durable) }

    /// What was saved last.
    public func loadDurable() -> DurableLoadResult { DurableLoadResult(durable: stored.current) }

    /// Keeps `durable` (an empty part removes it); never fails.
    public func saveDurable(_ durable: DurableLedger) throws(LedgerStoreError) {
        stored.withLock { $0 = durable.isEmpty ? nil : durable }
    }

    /// What was saved last, `nil` when nothing (or only an empty part) was.
    public var durable: DurableLedger? { stored.current }

    /// Forgets everything, as erasing the device (or a Keychain-wiping iOS) would.
    public func erase() { stored.withLock { $0 = nil } }
}
