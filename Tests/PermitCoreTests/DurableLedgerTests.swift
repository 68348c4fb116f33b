import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// `remember_durable`: what survives a reinstall in the Keychain (docs/reference/policy.md#policy-remember-durable,
/// docs/platform.md K-01).
@Suite struct DurableLedgerTests {
    let keys = DurableKeys(histories: [.settingsPrompt], state: ["asks"])

    func ledger() -> Ledger {
        var ledger = Ledger()
        ledger.launches = 4
        ledger.legacyRegistered = true
        ledger.settingsPrompt.shown = 2
        ledger.softPrompt.shown = 1
        ledger.state = ["asks": .integer(3), "mood": .string("calm")]
        return ledger
    }

    @Test func theDurablePartHoldsTheAskedFlagAndOnlyWhatThePolicyKeeps() {
        let durable = ledger().durablePart(keeping: keys)
        #expect(durable.legacyRegistered)
        #expect(durable.settingsPrompt?.shown == 2)
        #expect(durable.softPrompt == nil && durable.systemPrompt == nil)
        #expect(durable.state == ["asks": .integer(3)])
        #expect(Ledger().durablePart(keeping: keys).isEmpty)
    }

    @Test func restoringPutsBackOnlyWhatThePolicyKeepsNow() {
        var durable = ledger().durablePart(keeping: DurableKeys(histories: [.settingsPrompt, .softPrompt], state: ["asks", "mood"]))
        durable.lastSeenAt = 1_000
        var fresh = Ledger()
        fresh.restore(durable, keeping: keys, now: 1_000 + 3_600)
        #expect(fresh.legacyRegistered)
        #expect(fresh.settingsPrompt.shown == 2)
        #expect(fresh.softPrompt.shown == 0)  // no longer kept: starts afresh
        #expect(fresh.state == ["asks": .integer(3)])
        #expect(fresh.launches == 0)
    }

    /// iOS forgets an answer once the app stays deleted for a day (TN2265): after a longer gap
    /// (or with no time recorded) the asked-flag stays behind, the policy's keys do not.
    @Test func theAskedFlagComesBackOnlyWithinADayOfTheAppLastRunning() {
        var durable = ledger().durablePart(keeping: keys)
        durable.lastSeenAt = 1_000
        var soon = Ledger()
        soon.restore(durable, keeping: keys, now: 1_000 + 86_399)
        #expect(soon.legacyRegistered)
        var late = Ledger()
        late.restore(durable, keeping: keys, now: 1_000 + 86_400)
        #expect(!late.legacyRegistered)
        #expect(late.settingsPrompt.shown == 2 && late.state == ["asks": .integer(3)])
        durable.lastSeenAt = nil
        var unknown = Ledger()
        unknown.restore(durable, keeping: keys, now: 1_000)
        #expect(!unknown.legacyRegistered)
    }

    /// The headline case: iOS 9, denied, reinstalled within a day (iOS still remembers the
    /// denial). Without the Keychain the status reads "not asked"; with it, "denied".
    @Test func anIOS9DenialSurvivesAReinstallThroughTheKeychain() async throws {
        let policy = ClosurePolicy(durableKeys: keys) { ctx in
            ctx.event.feature != nil ? Decision(.requestPermission(options: [.alert])) : nil
        }
        let clock = ManualClock(start)
        let device = try SimulatedDevice(platform: platform("9.3"), clock: clock)
        func engine() -> PermissionEngine {
            PermissionEngine(
                policy: policy, client: device, platform: device.platform, store: InMemoryLedgerStore(),
                durableStore: device.keychain, clock: clock)
        }
        let first = engine()
        _ = await first.handle(.appLaunch)
        _ = await first.handle(.featureOpened("diary"))
        let granted = try device.answerDialog(allow: false)
        #expect(await first.handle(.systemPromptAnswered(granted: granted)).statusAfter == .denied)
        #expect(device.keychain.durable?.legacyRegistered == true)

        device.reinstall(systemRemembers: true)
        let second = engine()
        #expect(second.restoredDurablePart)
        #expect(await second.handle(.appLaunch).statusAfter == .denied)

        device.reinstall(systemRemembers: true, keychainSurvives: false)
        let third = engine()
        #expect(!third.restoredDurablePart)
        #expect(await third.handle(.appLaunch).statusAfter == .notDetermined)

        // The first request settles it at once (iOS remembered), and the flag is kept again.
        let asked = await third.handle(.featureOpened("diary"))
        #expect(!asked.dialogShown && asked.statusAfter == .denied)
        // Then deleted for two days: iOS forgot, so must the engine; the dialog shows again.
        _ = await third.handle(.appBackground)
        clock.advance(by: 2 * 86_400)
        device.reinstall(systemRemembers: false)
        let fourth = engine()
        #expect(await fourth.handle(.appLaunch).statusAfter == .notDetermined)
        #expect(await fourth.handle(.featureOpened("diary")).dialogShown)
    }

    @Test func aDurablePartNeverOverwritesWhatThisInstallRecorded() async {
        let keychain = InMemoryDurableStore(
            DurableLedger(
                settingsPrompt: {
                    var history = Ledger.SettingsPromptHistory()
                    history.shown = 5
                    return history
                }()))
        var used = Ledger()
        used.launches = 1
        let engine = PermissionEngine(
            policy: ClosurePolicy(durableKeys: keys) { _ in nil },
            client: try! SimulatedDevice(platform: platform("16.0"), clock: ManualClock(start)),
            platform: platform("16.0"), store: InMemoryLedgerStore(used), durableStore: keychain)
        #expect(!engine.restoredDurablePart)
        #expect(await engine.history.settingsPrompt.shown == 0)
    }

    @Test func theKeychainIsWrittenOnlyWhenTheDurablePartChanges() async {
        let keychain = CountingDurableStore()
        let world = World(
            policy: ClosurePolicy(durableKeys: keys) { ctx in
                ctx.event.feature == "nag" ? Decision(.none, remember: ["asks": .integer(1), "mood": .string("x")]) : nil
            }, durableStore: keychain)
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.appForeground)
        #expect(keychain.saves.current == 0)  // nothing durable yet: no item written
        _ = await world.engine.handle(.featureOpened("nag"))
        #expect(keychain.saves.current == 1)
        _ = await world.engine.handle(.featureOpened("nag"))  // same values: no write
        #expect(keychain.saves.current == 1)
        world.advance(60)
        _ = await world.engine.handle(.appBackground)  // the time last seen moves on
        #expect(keychain.saves.current == 2)
        #expect(keychain.stored.current?.state == ["asks": .integer(1)])
        #expect(keychain.stored.current?.lastSeenAt == 1_767_600_060)
    }

    /// An install that ran before it had a durable store (or before its policy kept anything)
    /// writes its item with the first event, not only once something changes.
    @Test func anExistingInstallWritesItsDurablePartAtTheFirstEvent() async {
        var used = Ledger()
        used.launches = 7
        used.settingsPrompt.shown = 2
        let keychain = CountingDurableStore()
        let world = World(ledger: used, policy: ClosurePolicy(durableKeys: keys) { _ in nil }, durableStore: keychain)
        _ = await world.engine.handle(.appForeground)
        #expect(keychain.saves.current == 1)
        #expect(keychain.stored.current?.settingsPrompt?.shown == 2)
    }

    @Test func aFailingKeychainIsReportedAndRetried() async {
        let keychain = CountingDurableStore(failures: 1)
        let world = World(
            policy: ClosurePolicy(durableKeys: keys) { ctx in
                ctx.event.feature != nil ? Decision(.none, remember: ["asks": .integer(1)]) : nil
            }, durableStore: keychain)
        let failed = await world.engine.handle(.featureOpened("a"))
        #expect(failed.storageError?.contains("test keychain refused") == true)
        let retried = await world.engine.handle(.appForeground)
        #expect(retried.storageError == nil)
        #expect(keychain.stored.current?.state == ["asks": .integer(1)])
    }

    /// The part is rebuilt only when what it is made of changes; a write that failed is
    /// tried again at the next event even when nothing changed since.
    @Test func aFailedWriteIsRetriedWithNothingChangedAndEachChangeIsWritten() async {
        let keychain = CountingDurableStore(failures: 1)
        let world = World(
            policy: ClosurePolicy(durableKeys: keys) { ctx in
                switch ctx.event.feature {
                case "nag": Decision(.none, remember: ["asks": .integer(1)])
                case "more": Decision(.none, remember: ["asks": .integer(2)])
                default: nil
                }
            }, durableStore: keychain)
        #expect(await world.engine.handle(.featureOpened("nag")).storageError != nil)
        #expect(await world.engine.handle(.featureOpened("other")).storageError == nil)
        #expect(keychain.saves.current == 1)
        _ = await world.engine.handle(.featureOpened("nag"))  // the same value again: no write
        _ = await world.engine.handle(.featureOpened("other"))
        #expect(keychain.saves.current == 1)
        _ = await world.engine.handle(.featureOpened("more"))
        #expect(keychain.saves.current == 2)
        #expect(keychain.stored.current?.state == ["asks": .integer(2)])
    }

    /// A delivered policy may change what it keeps between two events that change nothing else.
    @Test func changedDurableKeysAreWrittenAtTheNextEvent() async {
        let policy = KeysPolicy(DurableKeys(state: ["asks"]))
        let keychain = CountingDurableStore()
        let world = World(policy: policy, durableStore: keychain)
        _ = await world.engine.handle(.featureOpened("nag"))
        #expect(keychain.stored.current?.state == ["asks": .integer(1)])
        policy.keys.withLock { $0 = DurableKeys(state: ["asks", "mood"]) }
        _ = await world.engine.handle(.featureOpened("other"))
        #expect(keychain.saves.current == 2)
        #expect(keychain.stored.current?.state == ["asks": .integer(1), "mood": .string("calm")])
    }

    @Test func theItemsBytesRoundTripAndRefuseWhatTheyCannotTrust() throws {
        let durable = ledger().durablePart(keeping: keys)
        let data = try DurableLedgerCoding.encode(durable, location: "test")
        #expect(try DurableLedgerCoding.encode(durable, location: "test") == data)  // stable bytes
        #expect(DurableLedgerCoding.decode(data, location: "test").durable == durable)

        let newer = Data(#"{"version": 2, "legacy_registered": true, "state": {}}"#.utf8)
        let fromNewer = DurableLedgerCoding.decode(newer, location: "item")
        #expect(fromNewer.durable == nil)
        #expect(fromNewer.warnings.first?.contains("layout 2, newer than this build's 1") == true)

        let damaged = DurableLedgerCoding.decode(Data("{not json".utf8), location: "item")
        #expect(damaged.durable == nil && damaged.warnings.first?.contains("damaged") == true)

        // A key given twice: the decoder would keep one of the two in silence.
        let twice = DurableLedgerCoding.decode(Data(#"{"version": 1, "state": {"asks": 1, "asks": 9}}"#.utf8), location: "item")
        #expect(twice.durable == nil)
        #expect(twice.warnings.first?.contains("state.asks appears twice") == true, "\(twice.warnings)")

        var huge = DurableLedger()
        huge.state = ["big": .string(String(repeating: "x", count: DurableLedgerCoding.byteLimit))]
        #expect(throws: LedgerStoreError.self) { try DurableLedgerCoding.encode(huge, location: "item") }
    }

    @Test func keychainStatusCodesReadAsWhatToDo() {
        #expect(KeychainStatusText.describe(-34018).contains("keychain access group"))
        #expect(KeychainStatusText.describe(-25308).contains("first unlock"))
        #expect(KeychainStatusText.describe(-4).contains("OSStatus -4"))
    }
}

/// A durable store that counts writes and can refuse the first ones.
final class CountingDurableStore: DurableStore {
    let saves = Locked(0)
    let stored = Locked<DurableLedger?>(nil)
    private let failuresLeft: Locked<Int>

    init(failures: Int = 0) { failuresLeft = Locked(failures) }

    func loadDurable() -> DurableLoadResult { DurableLoadResult(durable: stored.current) }

    func saveDurable(_ durable: DurableLedger) throws(LedgerStoreError) {
        let refuse = failuresLeft.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if refuse { throw LedgerStoreError(location: "test", reason: "test keychain refused") }
        saves.withLock { $0 += 1 }
        stored.withLock { $0 = durable }
    }
}

/// A policy whose durable keys a test changes, as a delivered update does.
final class KeysPolicy: Policy {
    let keys: Locked<DurableKeys>

    init(_ keys: DurableKeys) { self.keys = Locked(keys) }

    var declaration: PolicyDeclaration { PolicyDeclaration(name: "keys", durableKeys: keys.current) }

    func answer(_ context: PolicyContext) -> PolicyAnswer {
        let decision = context.event.feature == "nag" ? Decision(.none, remember: ["asks": .integer(1), "mood": .string("calm")]) : nil
        return PolicyAnswer(decision: .success(decision), trace: "")
    }

    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] { [] }
    func validate(params: [String: PolicyValue]) throws(PolicyError) {}
    func takeTrace() -> String { "" }
    func eventHandled(errors: [PolicyError]) {}
}
