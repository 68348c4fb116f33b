#if !canImport(Security)
import Foundation
import PermitCore
import PermitDelivery

/// A stand-in, off Apple platforms, for PermitDelivery's Keychain-only
/// `KeychainAntiRollbackVault`, with the same initializer: `AppPolicy` (docs/bundles.md's code)
/// then builds here unchanged. It keeps the record in memory, as if the Keychain were empty at
/// each launch.
struct KeychainAntiRollbackVault: AntiRollbackVault {
    private let record = Locked<Data?>(nil)

    init(service: String, pack: String) {}

    func read() throws -> Data? { record.current }

    func write(_ data: Data) throws { record.withLock { $0 = data } }
}
#endif
