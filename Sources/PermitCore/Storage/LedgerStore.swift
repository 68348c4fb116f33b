/// Where the ledger lives between launches.
///
/// `load` never fails: a store that finds damage (bad content) sets the file aside, reports it
/// in `warnings`, and starts from what it could keep. One that cannot read at all (the device
/// is locked and the file is protected, a permission, an I/O error) says so in `unavailable`
/// and changes nothing: the engine then decides nothing, saves nothing, and loads again at its
/// next event. `save` reports failures; the engine keeps the ledger in memory and tries again
/// with the next event, so nothing is lost.
public protocol LedgerStore: Sendable {
    /// The stored ledger, or a fresh one; never fails (damage is set aside and reported).
    func load() -> LedgerLoadResult
    /// Stores the ledger; a failure is reported, and the engine retries with the next event.
    func save(_ ledger: Ledger) throws(LedgerStoreError)
}

/// A loaded ledger and what went wrong on the way.
public struct LedgerLoadResult: Sendable {
    /// The ledger, as much of it as could be kept.
    public var ledger: Ledger
    /// Human-readable reports: a damaged file moved aside, a file from a newer version, ...
    public var warnings: [String]
    /// Why the store could not read what it holds, when it could not (a locked device, a
    /// permission): not damage, so nothing was set aside, and `ledger` is empty and must not be
    /// saved over it. `nil` when the load read the store (or found nothing there).
    public var unavailable: String?

    /// A loaded ledger with what went wrong loading it.
    public init(ledger: Ledger, warnings: [String] = [], unavailable: String? = nil) {
        self.ledger = ledger
        self.warnings = warnings
        self.unavailable = unavailable
    }
}

/// A ledger that could not be written.
public struct LedgerStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the store writes (a file path, a defaults key).
    public let location: String
    /// What failed, in the system's words.
    public let reason: String
    /// A failed save at `location`.
    public init(location: String, reason: String) {
        self.location = location
        self.reason = reason
    }
    /// A sentence for a log.
    public var description: String { "could not save the ledger to \(location): \(reason)" }
}

/// Keeps the ledger in memory: tests, scenarios, simulations.
public final class InMemoryLedgerStore: LedgerStore {
    private let stored: Locked<Ledger>

    /// A store holding `ledger`; nothing survives the process.
    public init(_ ledger: Ledger = Ledger()) { stored = Locked(ledger) }

    /// The ledger last saved.
    public func load() -> LedgerLoadResult { LedgerLoadResult(ledger: stored.current) }

    /// Keeps `ledger`; never fails.
    public func save(_ ledger: Ledger) throws(LedgerStoreError) {
        stored.withLock { $0 = ledger }
    }

    /// What was saved last.
    public var ledger: Ledger { stored.current }
}
