#if canImport(Security)
import Foundation
import Security

/// Keeps the durable part of the ledger in one Keychain item, so that it outlives deleting
/// the app (docs/platform.md, rule R-02: so far true of every iOS, though Apple calls it an
/// implementation detail).
///
/// A thin shim: the item's bytes come from `DurableLedgerCoding` and the messages from
/// `KeychainStatusText`, both tested on every platform. The item is
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: readable by background launches after
/// the first unlock, and never restored to another device from a backup, because the
/// notification permission it describes belongs to this device.
public final class KeychainDurableStore: DurableStore {
    /// The item's service, for example the app's bundle identifier plus `.permit`.
    public let service: String
    /// The item's account name.
    public let account: String

    /// A store for the item `service` / `account`.
    public init(service: String, account: String = "durable-ledger") {
        self.service = service
        self.account = account
    }

    private var location: String { "Keychain item \(service)/\(account)" }

    private var query: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    /// Reads the item; a missing one is no durable part, bytes that are not one a warning, and
    /// any other answer of the Keychain (`errSecInteractionNotAllowed` while the device is
    /// locked, docs/platform.md "Locked device") leaves the part unavailable, to be read again.
    public func loadDurable() -> DurableLoadResult {
        var search = query
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        if status == KeychainStatusText.itemNotFound { return DurableLoadResult(durable: nil) }
        guard status == errSecSuccess, let data = result as? Data else {
            return DurableLoadResult(durable: nil, unavailable: "\(location): \(KeychainStatusText.describe(status))")
        }
        return DurableLedgerCoding.decode(data, location: location)
    }

    /// Writes the item (updating it in place), or deletes it when the part is empty.
    public func saveDurable(_ durable: DurableLedger) throws(LedgerStoreError) {
        if durable.isEmpty {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == KeychainStatusText.itemNotFound else {
                throw LedgerStoreError(location: location, reason: KeychainStatusText.describe(status))
            }
            return
        }
        let data = try DurableLedgerCoding.encode(durable, location: location)
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == KeychainStatusText.itemNotFound {
            status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw LedgerStoreError(location: location, reason: KeychainStatusText.describe(status))
        }
    }
}
#endif
