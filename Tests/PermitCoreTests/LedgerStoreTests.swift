import Foundation
import Testing

@testable import PermitCore

@Suite struct LedgerStoreTests {
    /// A fresh directory per test.
    func directory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("permit-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func sample() -> Ledger {
        var ledger = Ledger()
        ledger.launches = 4
        ledger.firstLaunchAt = 1_767_600_000
        ledger.lastStatus = .denied
        ledger.deniedAt = 1_767_600_100
        ledger.softPrompt.declined = 2
        ledger.systemPrompt.granted = false
        ledger.features["reminders"] = Ledger.FeatureHistory()
        ledger.features["reminders"]?.opened = 3
        ledger.state = ["variant": .string("b"), "count": .integer(3), "ratio": .number(0.5), "seen": .bool(true)]
        ledger.events["lesson_completed"] = Ledger.EventHistory()
        ledger.events["lesson_completed"]?.count = 2
        ledger.events["lesson_completed"]?.lastAt = 1_767_600_200
        return ledger
    }

    func files(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasSuffix(".lock") }.sorted()
    }

    @Test func roundTrip() throws {
        let url = directory().appendingPathComponent("ledger.json")
        var store: JSONFileLedgerStore? = try JSONFileLedgerStore(url: url)
        try store?.save(sample())
        store = nil  // a later launch: a new store on the same file
        let loaded = try JSONFileLedgerStore(url: url).load()
        #expect(loaded.ledger == sample())
        #expect(loaded.warnings.isEmpty)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("\"schema\":1"))
        #expect(text.contains("\"soft_prompt\":{"))
    }

    @Test func missingFileStartsCleanWithoutWarnings() throws {
        let loaded = try JSONFileLedgerStore(url: directory().appendingPathComponent("none.json")).load()
        #expect(loaded.ledger == Ledger())
        #expect(loaded.warnings.isEmpty)
    }

    @Test func savingCreatesTheDirectory() throws {
        let url = directory().appendingPathComponent("nested/deeper/ledger.json")
        try JSONFileLedgerStore(url: url).save(sample())
        #expect(try JSONFileLedgerStore(url: url).load().ledger == sample())
    }

    @Test func anInterruptedWriteLeavesTheOldFileReadable() throws {
        let dir = directory()
        let url = dir.appendingPathComponent("ledger.json")
        try JSONFileLedgerStore(url: url).save(sample())
        // A crash mid-write leaves a partial temporary file beside the real one; the real one
        // was never touched, because writes only ever replace it by rename.
        let partial = try LedgerCoding.encode(Ledger()).prefix(9)
        try partial.write(to: dir.appendingPathComponent(".ledger.json.\(UUID().uuidString).tmp"))
        let loaded = try JSONFileLedgerStore(url: url).load()
        #expect(loaded.ledger == sample())
        #expect(loaded.warnings.isEmpty)
    }

    @Test(arguments: [
        ("", "it is empty"),
        ("{\"schema\": 1, \"ledger\": {\"launches\": 3", "is not a Permit ledger"),
        ("\u{0}\u{1}garbage", "is not a Permit ledger"),
        ("{\"schema\": 1, \"ledger\": {\"launches\": \"three\"}}", "ledger.launches"),
        ("{\"schema\": 1, \"ledger\": {\"last_status\": \"maybe\"}}", "ledger.last_status"),
        ("{\"schema\": 7, \"ledger\": {}}", "newer Permit (schema 7"),
        ("[1, 2, 3]", "is not a Permit ledger"),
        ("{\"schema\": 1, \"ledger\": {\"launches\": 3,\n\"launches\": 900}}", "ledger.launches appears twice, at lines 1 and 2"),
    ])
    func damagedFilesAreSetAsideAndReported(content: String, reason: String) throws {
        let dir = directory()
        let url = dir.appendingPathComponent("ledger.json")
        try Data(content.utf8).write(to: url)
        let store = try JSONFileLedgerStore(url: url)
        let loaded = store.load()
        #expect(loaded.ledger == Ledger())
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.contains(reason) == true, "\(loaded.warnings)")
        // The unreadable bytes are kept, never silently replaced.
        let aside = files(in: dir).filter { $0.hasPrefix("ledger.json.damaged-") }
        try #require(aside.count == 1)
        #expect(try Data(contentsOf: dir.appendingPathComponent(aside[0])) == Data(content.utf8))
        // The next save writes a fresh file and the copy stays.
        try store.save(sample())
        #expect(store.load().ledger == sample())
        #expect(files(in: dir).contains(aside[0]))
    }

    @Test func aPartialLedgerFillsDefaults() throws {
        let url = directory().appendingPathComponent("ledger.json")
        try Data(#"{"schema":1,"ledger":{"launches":4,"soft_prompt":{"declined":1}}}"#.utf8).write(to: url)
        let loaded = try JSONFileLedgerStore(url: url).load()
        #expect(loaded.warnings.isEmpty)
        #expect(loaded.ledger.launches == 4)
        #expect(loaded.ledger.softPrompt.declined == 1)
        #expect(loaded.ledger.softPrompt.shown == 0)
        #expect(loaded.ledger.lastStatus == .unknown)
    }

    @Test func anUnwritableLocationFailsTheSaveWithAClearError() throws {
        // The "directory" is a regular file, so nothing can be created under it, even as root.
        let blocker = directory().appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let store = try JSONFileLedgerStore(url: blocker.appendingPathComponent("ledger.json"))
        #expect {
            try store.save(sample())
        } throws: { error in
            (error as? LedgerStoreError)?.location.hasSuffix("not-a-directory/ledger.json") == true
        }
        #expect(try Data(contentsOf: blocker) == Data("x".utf8))
    }

    @Test func aSaveThatCannotRenameReportsAndKeepsTheOldFile() throws {
        // The target is a non-empty directory: rename(2) must fail whatever the user's rights.
        let dir = directory()
        let url = dir.appendingPathComponent("ledger.json")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("occupied"), withIntermediateDirectories: true)
        #expect {
            try JSONFileLedgerStore(url: url).save(sample())
        } throws: { error in
            (error as? LedgerStoreError)?.description.contains("could not save the ledger to") == true
        }
        // No temporary file is left behind.
        #expect(files(in: dir) == ["ledger.json"])
    }

    @Test func aSecondStoreOnTheSameFileIsRefusedClearly() throws {
        let url = directory().appendingPathComponent("ledger.json")
        var first: JSONFileLedgerStore? = try JSONFileLedgerStore(url: url)
        try first?.save(sample())
        #expect {
            try JSONFileLedgerStore(url: url)
        } throws: { error in
            (error as? LedgerStoreError)?.reason.contains("another engine is using this ledger") == true
        }
        first = nil  // the lock goes with the store
        #expect(try JSONFileLedgerStore(url: url).load().ledger == sample())
    }

    /// A crash can stop a write anywhere: whatever prefix of a ledger file is left, loading
    /// never crashes, and either reads it or sets it aside with a warning and a copy.
    /// Writes a fixture without `Data.write`'s fsync: the truncated files only need to be read
    /// back by this process, and a thousand fsyncs were a third of the test's time.
    static func writeUnsynced(_ data: Data, to url: URL) throws {
        guard let file = fopen(url.path, "wb") else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { fclose(file) }
        let written = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == data.count else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
    }

    @Test func everyTruncationOfAWriteLoadsSafely() throws {
        let full = try LedgerCoding.encode(sample())
        let dir = directory()
        for length in 0..<full.count {
            let url = dir.appendingPathComponent("ledger-\(length).json")
            try Self.writeUnsynced(full.prefix(length), to: url)
            let loaded = try JSONFileLedgerStore(url: url).load()
            #expect(loaded.ledger == Ledger() && loaded.warnings.count == 1, "prefix of \(length) bytes")
        }
        let url = dir.appendingPathComponent("ledger-full.json")
        try full.write(to: url)
        #expect(try JSONFileLedgerStore(url: url).load().ledger == sample())
        // Every damaged prefix was kept aside, none deleted.
        #expect(files(in: dir).filter { $0.contains(".damaged-") }.count == full.count)
    }

    @Test func inMemoryStoreRoundTrip() throws {
        let store = InMemoryLedgerStore()
        try store.save(sample())
        #expect(store.load().ledger == sample())
    }
}

@Suite struct LedgerSchemaTests {
    /// The names tools validate against are exactly what the ledger encodes.
    @Test func schemaMatchesTheEncoding() throws {
        var ledger = Ledger()
        ledger.firstLaunchAt = 1; ledger.statusChangedAt = 1; ledger.deniedAt = 1; ledger.promptsDay = "d"
        ledger.softPrompt.lastShownAt = 1; ledger.softPrompt.lastAnsweredAt = 1
        ledger.systemPrompt.answeredAt = 1; ledger.systemPrompt.granted = true
        ledger.settingsPrompt.lastShownAt = 1
        ledger.inform.lastShownAt = 1
        ledger.installID = "install"; ledger.arms = ["first_ask": "quiet"]; ledger.appVersion = "2.0"
        var feature = Ledger.FeatureHistory()
        feature.lastOpenedAt = 1; feature.lastPromptAt = 1
        ledger.features["f"] = feature
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ledger)) as! [String: Any]
        #expect(Set(object.keys) == Set(Ledger.topLevelFields))
        for (name, fields) in Ledger.nestedFields {
            #expect(Set((object[name] as! [String: Any]).keys) == Set(fields), "\(name)")
        }
        let features = object["features"] as! [String: [String: Any]]
        #expect(Set(features["f"]!.keys) == Set(Ledger.featureFields))
        ledger.events["e"] = Ledger.EventHistory()
        ledger.events["e"]?.lastAt = 1
        let withEvents = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ledger)) as! [String: Any]
        let events = withEvents["events"] as! [String: [String: Any]]
        #expect(Set(events["e"]!.keys) == Set(Ledger.eventFields))
    }

    /// A ledger saved before app events existed (schema 1 without `events`) reads with no
    /// event counted and keeps everything else: adding the key needed no new schema.
    @Test func aLedgerFromBeforeAppEventsReadsWithNoEvents() throws {
        let old = #"{"schema":1,"ledger":{"launches":3,"soft_prompt":{"shown":1},"state":{"a":1}}}"#
        let ledger = try LedgerCoding.decode(Data(old.utf8)).get()
        #expect(ledger.launches == 3 && ledger.softPrompt.shown == 1 && ledger.state == ["a": .integer(1)])
        #expect(ledger.events.isEmpty)
    }
}
