#if canImport(Security)
import Foundation
import Security

/// The anti-rollback record in the Keychain, apart from the app's files: a damaged or replaced
/// delivery directory then cannot reopen old or revoked bundle versions. It holds only the
/// record's bytes; reading, merging and writing the record is `DeliveryStore`'s (tested on
/// every platform with other vaults).
///
/// A generic password item of `service` and `account`, readable after the first unlock (the
/// policy source may start in the background) and kept on this device only.
public struct KeychainAntiRollbackVault: AntiRollbackVault {
    /// The item's service (`kSecAttrService`).
    public var service: String
    /// The item's account (`kSecAttrAccount`): one per pack.
    public var account: String

    /// A vault for `pack`'s record under `service` (your app's bundle identifier, say).
    public init(service: String, pack: String) {
        self.service = service
        self.account = "permit-anti-rollback.\(pack)"
    }

    /// The Keychain's error code, for logs.
    public struct KeychainError: Error, CustomStringConvertible {
        /// The `OSStatus` the Keychain returned.
        public var status: OSStatus
        /// `Keychain error <status>`.
        public var description: String { "Keychain error \(status)" }
    }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    /// The stored bytes, or `nil` when there is no item yet.
    public func read() throws -> Data? {
        var request = query
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
        return result as? Data
    }

    /// Replaces the stored bytes (adds the item the first time).
    public func write(_ data: Data) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == errSecSuccess { return }
        guard status == errSecItemNotFound else { throw KeychainError(status: status) }
        var item = query
        item.merge(attributes) { _, new in new }
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecSuccess else { throw KeychainError(status: added) }
    }
}
#endif
