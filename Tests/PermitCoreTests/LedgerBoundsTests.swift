import Foundation
import Testing

@testable import PermitCore

/// A ledger comes from a file, a defaults value or a Keychain item, so it may hold any count:
/// recording must never trap on one, and a value no Permit could have written is reported as
/// damage, never read as a fresh ledger in silence.
@Suite struct LedgerBoundsTests {
    /// Every counter at `Int.max`.
    static var full: Ledger {
        var ledger = Ledger()
        ledger.launches = .max
        ledger.foregrounds = .max
        ledger.promptsToday = .max
        ledger.promptsDay = "2026-01-05"
        ledger.softPrompt.shown = .max
        ledger.softPrompt.accepted = .max
        ledger.softPrompt.declined = .max
        ledger.softPrompt.dismissed = .max
        ledger.systemPrompt.requested = .max
        ledger.systemPrompt.shown = .max
        ledger.settingsPrompt.shown = .max
        ledger.settingsPrompt.opened = .max
        ledger.settingsPrompt.cancelled = .max
        ledger.features["reminders"] = Ledger.FeatureHistory()
        ledger.features["reminders"]?.opened = .max
        ledger.events["lesson_completed"] = Ledger.EventHistory()
        ledger.events["lesson_completed"]?.count = .max
        return ledger
    }

    /// Each event, answer and shown prompt counted once more at `Int.max` leaves the count
    /// there (it used to trap: an app crashing at every event of every launch).
    @Test func countersStopAtTheirMaximum() throws {
        var ledger = Self.full
        let events: [AppEvent] = [
            .appLaunch, .appForeground, .featureOpened("reminders"), .softPromptAnswered(.accept),
            .softPromptAnswered(.decline), .softPromptAnswered(.dismiss), .settingsPromptAnswered(.open),
            .settingsPromptAnswered(.cancel), .custom(try CustomEvent("lesson_completed")),
        ]
        for event in events { ledger.record(event, at: 1_767_600_000, legacy: false) }
        ledger.recordSoftPromptShown(at: 1_767_600_000, feature: "reminders")
        ledger.recordSettingsPromptShown(at: 1_767_600_000, feature: nil)
        ledger.recordPermissionRequest(at: 1_767_600_000, dialogShown: true, feature: nil)
        var expected = Self.full
        expected.firstLaunchAt = 1_767_600_000
        expected.features["reminders"]?.lastOpenedAt = 1_767_600_000
        expected.features["reminders"]?.lastPromptAt = 1_767_600_000
        expected.softPrompt.lastAnsweredAt = 1_767_600_000
        expected.softPrompt.lastShownAt = 1_767_600_000
        expected.settingsPrompt.lastShownAt = 1_767_600_000
        expected.events["lesson_completed"]?.lastAt = 1_767_600_000
        #expect(ledger == expected)
    }

    /// The engine on a stored ledger at the maximum: events are served, counts stay put.
    @Test func anEngineServesALedgerAtTheMaximum() async throws {
        let world = World(ledger: Self.full, policy: always(.softPrompt(softPrompt)))
        _ = await world.engine.handle(.appLaunch)
        _ = await world.engine.handle(.featureOpened("reminders"))
        #expect(world.store.ledger.launches == .max)
        #expect(world.store.ledger.features["reminders"]?.opened == .max)
        #expect(world.store.ledger.softPrompt.shown == .max)
    }

    /// The Keychain part's last-seen time is read from an item: one at the far past or future
    /// gives no recent sighting and does not trap.
    @Test func aLastSeenTimeAtTheLimitsRestoresWithoutTrapping() {
        for seen in [Int64.min, Int64.max] {
            var ledger = Ledger()
            ledger.restore(DurableLedger(legacyRegistered: true, lastSeenAt: seen), keeping: .none, now: 1_767_600_000)
            #expect(ledger.legacyRegistered == (seen == .max), "\(seen)")
        }
        var ledger = Ledger()
        ledger.restore(DurableLedger(legacyRegistered: true, lastSeenAt: 1), keeping: .none, now: .min)
        #expect(!ledger.legacyRegistered)
    }

    /// Values the JSON types accept but no Permit writes: each is a failure naming its field.
    @Test func decodingNamesTheValueThatIsNoLedgerValue() {
        let cases: [(String, String, String)] = [
            (#"{"schema":1,"ledger":{"launches":1.5}}"#, "ledger.launches", "not a whole number"),
            (#"{"schema":1,"ledger":{"launches":1e300}}"#, "ledger.launches", "not a whole number"),
            (#"{"schema":1,"ledger":{"first_launch_at":9223372036854775808}}"#, "ledger.first_launch_at", "not a whole number"),
            (#"{"schema":1,"ledger":{"soft_prompt":{"shown":-3}}}"#, "ledger.soft_prompt.shown", "never negative"),
            (#"{"schema":1,"ledger":{"events":{"a":{"count":-1}}}}"#, "ledger.events.a.count", "never negative"),
            (#"{"schema":99,"ledger":{}}"#, "schema", "newer Permit"),
            (#"{"schema":0,"ledger":{}}"#, "schema", "no Permit ledger schema"),
        ]
        for (json, field, words) in cases {
            guard case .failure(let failure) = LedgerCoding.decode(Data(json.utf8)) else {
                Issue.record("\(json) was read as a ledger")
                continue
            }
            #expect(failure.field == field, "\(json)")
            #expect(failure.reason.contains(words), "\(json): \(failure.reason)")
        }
        // A number in `state` may be any finite number, and counts may be as large as they come.
        let fine = #"{"schema":1,"ledger":{"launches":9223372036854775807,"state":{"ratio":1.5}}}"#
        #expect((try? LedgerCoding.decode(Data(fine.utf8)).get())?.launches == .max)
    }

    /// The file store sets a ledger with a negative count aside and says so (it was read as
    /// that count before).
    @Test func theFileStoreSetsANegativeCountAside() throws {
        let directory = LedgerStoreTests().directory()
        let url = directory.appendingPathComponent("ledger.json")
        let bytes = Data(#"{"schema":1,"ledger":{"launches":-2}}"#.utf8)
        try bytes.write(to: url)
        let loaded = try JSONFileLedgerStore(url: url).load()
        #expect(loaded.ledger == Ledger())
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.contains("launches is -2; counters are never negative") == true)
        let aside = try #require(LedgerStoreTests().files(in: directory).first { $0.hasPrefix("ledger.json.damaged-") })
        #expect(try Data(contentsOf: directory.appendingPathComponent(aside)) == bytes)
    }

    /// So does the defaults store, under `<key>.damaged`.
    @Test func theDefaultsStoreSetsANonWholeCountAside() throws {
        let suite = "permit-tests-\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        let defaults = try #require(UserDefaults(suiteName: suite))
        let bytes = Data(#"{"schema":1,"ledger":{"foregrounds":2.5}}"#.utf8)
        defaults.set(bytes, forKey: "permit.ledger")
        let loaded = UserDefaultsLedgerStore(suiteName: suite).load()
        #expect(loaded.ledger == Ledger())
        #expect(loaded.warnings.first?.contains("ledger.foregrounds: 2.5 is not a whole number") == true)
        #expect(defaults.data(forKey: "permit.ledger.damaged") == bytes)
    }

    /// The Keychain part with a negative count is ignored with a warning, never restored.
    @Test func aDurablePartWithANegativeCountIsIgnored() {
        let bytes = Data(#"{"version":1,"legacy_registered":false,"soft_prompt":{"shown":-4},"state":{}}"#.utf8)
        let loaded = DurableLedgerCoding.decode(bytes, location: "item")
        #expect(loaded.durable == nil)
        #expect(loaded.warnings == ["item: the durable ledger is damaged (soft_prompt.shown is -4; counters are never negative); ignored"])
    }
}
