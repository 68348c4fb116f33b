import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// A store that cannot be read (a locked device keeps a protected file unreadable) is not a
/// damaged one: nothing is set aside or overwritten, and nothing that depends on history is
/// decided until it reads. The read failure is injected, as Data Protection would make it.
@Suite struct LockedDeviceTests {
    /// Whether the injected reads fail, as they do on a locked device.
    final class Lock: Sendable {
        let locked = Locked(true)

        /// Reads the file unless locked; locked, fails as iOS does for a protected file.
        func read(_ url: URL) throws -> Data {
            if locked.current { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
            return try Data(contentsOf: url)
        }

        func unlock() { locked.withLock { $0 = false } }
    }

    let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-locked-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
    var url: URL { directory.appendingPathComponent("ledger.json") }

    /// A user who declined the soft prompt twice and then the system dialog.
    func refused() -> Ledger {
        var ledger = Ledger()
        ledger.launches = 4
        ledger.firstLaunchAt = 1_767_000_000
        ledger.lastStatus = .denied
        ledger.softPrompt.declined = 2
        ledger.systemPrompt.granted = false
        return ledger
    }

    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasSuffix(".lock") }.sorted()
    }

    @Test func anUnreadableFileIsLeftInPlaceAndNeverSavedOver() throws {
        try JSONFileLedgerStore(url: url).save(refused())
        let bytes = try Data(contentsOf: url)
        let lock = Lock()
        let store = try JSONFileLedgerStore(url: url, reading: lock.read)
        let loaded = store.load()
        #expect(loaded.unavailable?.contains("could not be read") == true, "\(loaded)")
        #expect(loaded.warnings.isEmpty && loaded.ledger == Ledger())
        #expect(files() == ["ledger.json"], "nothing is moved aside")
        #expect(throws: LedgerStoreError.self) { try store.save(Ledger()) }
        #expect(try Data(contentsOf: url) == bytes, "nothing is saved over it")
        lock.unlock()
        let unlocked = store.load()
        #expect(unlocked.unavailable == nil && unlocked.ledger == refused())
        try store.save(unlocked.ledger)
    }

    @Test func badContentIsStillSetAside() throws {
        try Data("{\"schema\": 1, \"ledger\": {\"launches\": \"four\"}}".utf8).write(to: url)
        let lock = Lock()
        lock.unlock()
        let loaded = try JSONFileLedgerStore(url: url, reading: lock.read).load()
        #expect(loaded.unavailable == nil && loaded.warnings.count == 1)
        #expect(files().contains { $0.hasPrefix("ledger.json.damaged-") })
    }

    /// Asks for permission with a soft prompt, unless the user declined one before.
    let askingOnce = ClosurePolicy(name: "asking-once") { ctx in
        ctx.history.softPrompt.declined == 0 && ctx.event.feature != nil ? Decision(.softPrompt(softPrompt)) : nil
    }

    func engine(_ store: any LedgerStore, durableStore: (any DurableStore)? = nil) throws -> PermissionEngine {
        let platform = platform("16.0")
        let device = try SimulatedDevice(platform: platform, clock: ManualClock(start), authorization: .denied)
        return PermissionEngine(
            policy: askingOnce, client: device, platform: platform, store: store, durableStore: durableStore,
            clock: ManualClock(start))
    }

    @Test func aDeniedUserIsNotAskedAgainWhileTheLedgerIsLocked() async throws {
        try JSONFileLedgerStore(url: url).save(refused())
        let bytes = try Data(contentsOf: url)
        let lock = Lock()
        let engine = try engine(JSONFileLedgerStore(url: url, reading: lock.read))
        #expect(engine.unreadableStores != nil && engine.storeWarnings.isEmpty)
        _ = await engine.handle(.appLaunch)
        let locked = await engine.handle(.featureOpened("reminders"))
        #expect(locked.decision == .none)
        #expect(locked.storageError?.contains("nothing is decided or saved") == true, "\(String(describing: locked.storageError))")
        #expect(try Data(contentsOf: url) == bytes && files() == ["ledger.json"])
        lock.unlock()
        let unlocked = await engine.handle(.featureOpened("reminders"))
        #expect(unlocked.decision == .none && unlocked.storageError == nil)
        #expect(engine.unreadableStores == nil)
        let history = await engine.history
        #expect(history.softPrompt.declined == 2 && history.features["reminders"]?.opened == 1)
        #expect(try LedgerCoding.decode(Data(contentsOf: url)).get().softPrompt.declined == 2)
    }

    /// A Keychain that answers "interaction not allowed" until unlocked.
    final class LockedKeychain: DurableStore {
        let lock = Lock()
        let saves = Locked(0)
        func loadDurable() -> DurableLoadResult {
            lock.locked.current
                ? DurableLoadResult(durable: nil, unavailable: "Keychain item app/durable: the device is locked")
                : DurableLoadResult(durable: nil)
        }
        func saveDurable(_ durable: DurableLedger) throws(LedgerStoreError) { saves.withLock { $0 += 1 } }
    }

    @Test func anUnreadableDurableStoreHoldsTheLedgerBackToo() async throws {
        let keychain = LockedKeychain()
        let store = InMemoryLedgerStore(refused())
        let engine = try engine(store, durableStore: keychain)
        let locked = await engine.handle(.featureOpened("reminders"))
        #expect(locked.decision == .none && locked.storageError?.contains("the device is locked") == true)
        #expect(store.ledger == refused() && keychain.saves.current == 0)
        keychain.lock.unlock()
        _ = await engine.handle(.featureOpened("reminders"))
        #expect(store.ledger.features["reminders"]?.opened == 1 && store.ledger.softPrompt.declined == 2)
    }
}
