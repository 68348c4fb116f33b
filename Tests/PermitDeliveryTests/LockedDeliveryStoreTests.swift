import Foundation
import PermitCore
import Testing

@testable import PermitDelivery

/// A vault whose reads fail until it is unlocked, as the Keychain does on a locked device.
final class LockedVault: AntiRollbackVault, @unchecked Sendable {
    let locked = Locked(true)
    let stored = Locked<Data?>(nil)
    func read() throws -> Data? {
        if locked.current { throw CocoaError(.fileReadNoPermission) }
        return stored.current
    }
    func write(_ data: Data) throws { stored.withLock { $0 = data } }
}

/// The policy source's files and vault on a locked device: an unreadable copy is neither set
/// aside nor written over, and its mark still counts once it reads.
@Suite struct LockedDeliveryStoreTests {
    let directory = temporaryDirectory()

    func saved(highest: Int64, revoked: [Int64]) -> DeliveryStore.Saved {
        DeliveryStore.Saved(highestVersion: highest, revoked: revoked, installed: nil, fallback: nil, breaker: nil)
    }

    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() }

    @Test func anUnreadableGuardFileIsLeftInPlaceAndNotWrittenOver() throws {
        try DeliveryStore(directory: directory).save(saved(highest: 9, revoked: [8]))
        let guardBytes = try Data(contentsOf: directory.appendingPathComponent(DeliveryStore.guardFileName))
        let locked = Locked(true)
        var store = DeliveryStore(directory: directory)
        store.read = { url in
            if locked.current { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
            return try Data(contentsOf: url)
        }
        let loaded = store.load()
        #expect(loaded.unreadable.count == 2 && loaded.warnings.isEmpty, "\(loaded.unreadable)")
        #expect(try Set(files()) == [DeliveryStore.fileName, DeliveryStore.guardFileName], "nothing is moved aside")
        #expect(throws: DeliveryStore.StoreError.self) { try store.save(saved(highest: 3, revoked: [])) }
        #expect(try Data(contentsOf: directory.appendingPathComponent(DeliveryStore.guardFileName)) == guardBytes)
        locked.withLock { $0 = false }
        try store.save(saved(highest: 10, revoked: []))
        #expect(DeliveryStore(directory: directory).load().antiRollback == AntiRollbackRecord(highestVersion: 10, revoked: [8]))
    }

    @Test func aLockedVaultKeepsItsMarkUntilItReads() throws {
        let vault = LockedVault()
        vault.stored.withLock { $0 = AntiRollbackRecord(highestVersion: 7, revoked: [6]).encoded() }
        let store = DeliveryStore(directory: directory, vault: vault)
        #expect(store.load().unreadable.first?.contains("vault could not be read") == true)
        #expect(throws: DeliveryStore.StoreError.self) { try store.save(saved(highest: 2, revoked: [])) }
        #expect(try files().isEmpty, "nothing is written while a copy cannot be read")
        vault.locked.withLock { $0 = false }
        try store.save(saved(highest: 2, revoked: []))
        #expect(AntiRollbackRecord.decode(try #require(vault.stored.current)) == AntiRollbackRecord(highestVersion: 7, revoked: [6]))
    }
}
