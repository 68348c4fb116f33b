import PermitCore

/// A simulated user's app files as the engine's ledger store: a fresh install's ledger at
/// launch, and nothing kept after.
///
/// The engine saves its ledger after every event, but a simulation never reads a user's saved
/// ledger back: the engine keeps its own in memory for the whole install, and a reinstall
/// starts from a new, empty store (an app's files go with the app; what survives is the
/// Keychain, which the simulated device keeps). Keeping a copy, as `InMemoryLedgerStore` does,
/// cost a copy of the ledger, the release of the one before and a lock on every simulated
/// event, for a value nobody looked at.
struct FreshInstallLedgerStore: LedgerStore {
    /// A fresh install's ledger: nothing happened yet.
    func load() -> LedgerLoadResult { LedgerLoadResult(ledger: Ledger()) }

    /// Keeps nothing; never fails.
    func save(_ ledger: Ledger) throws(LedgerStoreError) {}
}
