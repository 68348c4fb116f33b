import Foundation

/// Keeps the ledger in `UserDefaults`, as the same schema-versioned JSON the file store writes.
/// A value that cannot be read is copied to `<key>.damaged` and reported. Meant for Apple
/// platforms; it builds and is tested wherever Foundation has `UserDefaults`.
///
/// `UserDefaults` cannot tell a locked device from an empty store: before the first unlock it
/// reads as empty rather than failing (docs/platform.md, "Locked device"), so this store would
/// start a fresh ledger then. An app whose process can start before the first unlock (pushes,
/// background refresh, prewarming) keeps the ledger in a `JSONFileLedgerStore`, which tells.
public final class UserDefaultsLedgerStore: LedgerStore {
    private let suiteName: String?
    private let key: String

    /// A store under `key` in the defaults suite `suiteName` (the standard defaults when nil).
    public init(suiteName: String? = nil, key: String = "permit.ledger") {
        self.suiteName = suiteName
        self.key = key
    }

    private var defaults: UserDefaults { suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard }

    /// Reads the ledger; a value that is not one is copied to `<key>.damaged` and reported.
    public func load() -> LedgerLoadResult {
        guard let data = defaults.data(forKey: key) else { return LedgerLoadResult(ledger: Ledger()) }
        switch LedgerCoding.decode(data) {
        case .success(let ledger):
            return LedgerLoadResult(ledger: ledger)
        case .failure(let reason):
            defaults.set(data, forKey: key + ".damaged")
            defaults.removeObject(forKey: key)
            return LedgerLoadResult(
                ledger: Ledger(), warnings: ["ledger in UserDefaults \"\(key)\" ignored: \(reason); copied to \"\(key).damaged\""])
        }
    }

    /// Writes the ledger.
    public func save(_ ledger: Ledger) throws(LedgerStoreError) {
        do {
            defaults.set(try LedgerCoding.encode(ledger), forKey: key)
        } catch {
            throw LedgerStoreError(location: "UserDefaults \"\(key)\"", reason: "\(error)")
        }
    }
}
