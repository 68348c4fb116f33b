import PermitCore

/// The simulated app's files, as the engine's ledger store: what a process saved, which the
/// next process loads, and which a reinstall wipes (the Keychain, on the device, is apart).
///
/// Saved after every event (`savesEveryEvent`, the default, as an app's store is), or only when
/// the process ends: a population simulation reads no user's files while a process runs, and
/// keeping a copy at every event made the engine's next change copy the whole ledger. The next
/// process loads the same ledger either way, since `SimulatedApp` hands over the engine's
/// ledger when it ends a process.
public final class AppFiles: LedgerStore {
    private let stored: Locked<Ledger>
    /// Whether the engine's save after each event is kept (else only the process's end is).
    public let savesEveryEvent: Bool

    /// Files holding `ledger` (a fresh install's by default).
    public init(_ ledger: Ledger = Ledger(), savesEveryEvent: Bool = true) {
        stored = Locked(ledger)
        self.savesEveryEvent = savesEveryEvent
    }

    /// The ledger last saved.
    public func load() -> LedgerLoadResult { LedgerLoadResult(ledger: stored.current) }

    /// Keeps `ledger` when saves after each event are kept; never fails.
    public func save(_ ledger: Ledger) throws(LedgerStoreError) {
        guard savesEveryEvent else { return }
        stored.withLock { $0 = ledger }
    }

    /// What was saved last.
    public var ledger: Ledger { stored.current }

    /// The process ends with `ledger` in memory: that is what it saved.
    func keep(_ ledger: Ledger) { stored.withLock { $0 = ledger } }

    /// A reinstall: the app's files are gone.
    func wipe() { stored.withLock { $0 = Ledger() } }
}
