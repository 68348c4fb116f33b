import Foundation
import PermitCore

/// The anti-rollback state: the greatest bundle version ever installed and the versions the
/// circuit breaker revoked. It only ever grows; a bundle at or below the mark, or revoked,
/// never installs.
///
/// Its form is kept small and stable on purpose, so that any app version can read what any
/// other wrote: one JSON object with `highest_version` (a whole number, absent when nothing
/// was installed) and `revoked` (whole numbers). A reader ignores fields it does not know, so
/// a newer app may add some; it must keep these two.
public struct AntiRollbackRecord: Sendable, Hashable {
    /// The greatest version ever installed; `nil` before the first install.
    public var highestVersion: Int64?
    /// Versions the circuit breaker removed, sorted.
    public var revoked: [Int64]

    /// A record; `revoked` is sorted and deduplicated.
    public init(highestVersion: Int64?, revoked: [Int64]) {
        self.highestVersion = highestVersion
        self.revoked = Array(Set(revoked)).sorted()
    }

    /// The union of two records: the greater mark and every revoked version of both. Merging
    /// never lowers either, so no copy that is behind can roll the state back.
    public func merged(with other: AntiRollbackRecord?) -> AntiRollbackRecord {
        guard let other else { return self }
        let highest: Int64? =
            switch (highestVersion, other.highestVersion) {
            case (nil, nil): nil
            case (let a?, nil): a
            case (nil, let b?): b
            case (let a?, let b?): max(a, b)
            }
        return AntiRollbackRecord(highestVersion: highest, revoked: revoked + other.revoked)
    }

    /// `{"highest_version":7,"revoked":[5,6]}` (keys sorted).
    public func encoded() -> Data {
        var fields: [String] = []
        if let highestVersion { fields.append("\"highest_version\":\(highestVersion)") }
        fields.append("\"revoked\":[" + revoked.map(String.init).joined(separator: ",") + "]")
        return Data(("{" + fields.joined(separator: ",") + "}\n").utf8)
    }

    /// Reads a record; `nil` when the bytes are not a JSON object with a well-typed
    /// `highest_version` or `revoked`. Other fields are ignored (a newer app's additions).
    public static func decode(_ data: Data) -> AntiRollbackRecord? {
        guard let object = try? JSONSerialization.jsonObject(with: data), let top = object as? [String: Any] else { return nil }
        return record(in: top, highest: "highest_version")
    }

    /// The two fields from an object, under `highest` and `revoked`; `nil` when neither is
    /// there with its type.
    static func record(in object: [String: Any], highest: String) -> AntiRollbackRecord? {
        let mark = (object[highest] as? NSNumber).flatMap(wholeNumber)
        let revokedValues = object["revoked"] as? [Any]
        let revoked = revokedValues?.compactMap { ($0 as? NSNumber).flatMap(wholeNumber) }
        guard mark != nil || revoked != nil else { return nil }
        return AntiRollbackRecord(highestVersion: mark, revoked: revoked ?? [])
    }

    private static func wholeNumber(_ number: NSNumber) -> Int64? {
        let value = number.doubleValue
        guard value.isFinite, value.rounded() == value, value >= 1, value < 9.2e18 else { return nil }
        return number.int64Value
    }
}

/// A second place for the anti-rollback record, apart from the delivery directory, so that
/// losing or damaging the directory's files does not reopen old or revoked versions. On Apple
/// platforms `KeychainAntiRollbackVault` keeps it in the Keychain; tests and other platforms
/// can give their own.
public protocol AntiRollbackVault: Sendable {
    /// The bytes last written, or `nil` when there are none.
    func read() throws -> Data?
    /// Replaces the bytes.
    func write(_ data: Data) throws
}

/// Keeps the policy source's state in `<directory>/policy-source.json`: the bundle serving (its
/// exact bytes), the one it falls back to, the version high-water mark, the revoked versions
/// and the circuit breaker's recent evidence against the bundle serving.
///
/// The high-water mark and the revoked versions are also kept apart, in the small
/// `policy-source.guard.json` (and in the vault when the host gives one): a torn or unreadable
/// state file, or one a newer app version wrote in a form this one does not know, cannot take
/// them with it. At load the copies are merged (the greater mark, every revoked version), so
/// the state never goes back.
///
/// Every write is atomic and flushed (`AtomicFile`), guard first. A damaged state file is moved
/// aside as `policy-source.json.damaged-<time>`, one a newer app wrote as
/// `policy-source.json.schema-<n>-<time>` (kept, never overwritten, so the newer app's state is
/// not lost); both are reported and the built-in policy then serves.
///
/// A file or a vault that cannot be read at all (a locked device keeps a protected file and
/// the Keychain closed; a permission; an I/O error) is not damaged: it is left in place,
/// reported, and nothing is written over any copy until a later read gets it, because the mark
/// it holds may be the highest. `save` reads again first and merges what it finds.
struct DeliveryStore: Sendable {
    static let schema = 1
    static let fileName = "policy-source.json"
    static let guardFileName = "policy-source.guard.json"

    let directory: URL
    var vault: (any AntiRollbackVault)?
    /// How the files are read (a test injects the failure of a locked device).
    var read: @Sendable (URL) throws -> Data = { try Data(contentsOf: $0) }
    /// Set by a load that could not read a copy; `save` then reads again before writing.
    private let unread = Locked(false)
    var url: URL { directory.appendingPathComponent(DeliveryStore.fileName) }
    var guardURL: URL { directory.appendingPathComponent(DeliveryStore.guardFileName) }

    /// The breaker's recent decisions on one bundle version (`true`: errored).
    struct BreakerEvidence: Codable, Sendable, Equatable {
        var version: Int64
        var results: [Bool]
    }

    struct Saved: Codable, Sendable, Equatable {
        var highestVersion: Int64?
        var revoked: [Int64]
        /// The bundle file's bytes (base64 in JSON).
        var installed: Data?
        /// The bundle the installed one falls back to (`nil`: the built-in policy).
        var fallback: Data?
        /// The breaker's window on the installed bundle, so its errors add up across launches.
        var breaker: BreakerEvidence?
        /// Bundles the launch guard set aside, with why (absent in files from before it).
        var setAside: [SetAsideBundle]? = nil

        var antiRollback: AntiRollbackRecord { AntiRollbackRecord(highestVersion: highestVersion, revoked: revoked) }
    }

    private struct Envelope: Codable {
        var schema: Int
        var saved: Saved
    }

    struct Loaded {
        /// The state file's content, when it was readable and of this schema.
        var saved: Saved?
        /// Every copy of the anti-rollback record merged; apply it whatever `saved` is.
        var antiRollback = AntiRollbackRecord(highestVersion: nil, revoked: [])
        var warnings: [String] = []
        /// The copies that could not be read at all, left in place, one sentence each.
        var unreadable: [String] = []
    }

    struct StoreError: Error, CustomStringConvertible {
        var description: String
    }

    func load() -> Loaded {
        let loaded = loadCopies()
        unread.withLock { $0 = !loaded.unreadable.isEmpty }
        return loaded
    }

    private func loadCopies() -> Loaded {
        var loaded = Loaded()
        loaded.antiRollback = loaded.antiRollback.merged(with: loadGuard(&loaded))
        if let vault {
            do {
                if let data = try vault.read() {
                    if let record = AntiRollbackRecord.decode(data) {
                        loaded.antiRollback = loaded.antiRollback.merged(with: record)
                    } else {
                        loaded.warnings.append("the anti-rollback record in the vault is unreadable; it is rewritten at the next save")
                    }
                }
            } catch {
                loaded.unreadable.append("the anti-rollback vault could not be read (\(error))")
            }
        }
        guard FileManager.default.fileExists(atPath: url.path) else { return loaded }
        let data: Data
        do {
            data = try read(url)
        } catch {
            loaded.unreadable.append("\(url.path) could not be read (\(error.localizedDescription)); serving the built-in policy")
            return loaded
        }
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        // Whatever the file is, the anti-rollback state it holds (in this schema's field
        // names) is kept: a newer or half-readable file must not lower it.
        if let savedObject = object?["saved"] as? [String: Any] {
            loaded.antiRollback = loaded.antiRollback.merged(with: AntiRollbackRecord.record(in: savedObject, highest: "highestVersion"))
        }
        if let schema = object?["schema"] as? Int, schema > DeliveryStore.schema {
            let kept = moveAside(url, as: "schema-\(schema)")
            loaded.warnings.append(
                "\(url.path) was written by a newer app version (schema \(schema), this one reads \(DeliveryStore.schema)); \(kept) so it is not lost; its version mark and revoked versions still apply; serving the built-in policy"
            )
            return loaded
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.schema == DeliveryStore.schema else {
            let kept = moveAside(url, as: "damaged")
            loaded.warnings.append(
                "\(url.path) is damaged; \(kept); the version mark and revoked versions kept apart still apply; serving the built-in policy"
            )
            return loaded
        }
        loaded.saved = envelope.saved
        loaded.antiRollback = loaded.antiRollback.merged(with: envelope.saved.antiRollback)
        return loaded
    }

    /// The guard file's record; a damaged one is moved aside and reported (the state file and
    /// the vault still hold the record, and the next save writes it again), an unreadable one
    /// left in place.
    private func loadGuard(_ loaded: inout Loaded) -> AntiRollbackRecord? {
        guard FileManager.default.fileExists(atPath: guardURL.path) else { return nil }
        let data: Data
        do {
            data = try read(guardURL)
        } catch {
            loaded.unreadable.append("\(guardURL.path) could not be read (\(error.localizedDescription)); it is left as it is")
            return nil
        }
        if let record = AntiRollbackRecord.decode(data) { return record }
        let kept = moveAside(guardURL, as: "damaged")
        loaded.warnings.append("\(guardURL.path) is damaged; \(kept); it is written again at the next save")
        return nil
    }

    /// Moves `file` to `<file>.<label>-<time>` (a free name: nothing kept aside is overwritten).
    private func moveAside(_ file: URL, as label: String) -> String {
        let stamp = Int64(Date().timeIntervalSince1970)
        var aside = file.appendingPathExtension("\(label)-\(stamp)")
        var counter = 1
        while FileManager.default.fileExists(atPath: aside.path) {
            aside = file.appendingPathExtension("\(label)-\(stamp)-\(counter)")
            counter += 1
        }
        return (try? FileManager.default.moveItem(at: file, to: aside)) != nil
            ? "moved it to \(aside.lastPathComponent)" : "could not move it aside"
    }

    /// Writes the anti-rollback record (guard file, then vault), then the whole state. After a
    /// load that could not read a copy, the copies are read again first: still unreadable,
    /// nothing is written; readable, their mark and revoked versions join what is written.
    func save(_ saved: Saved) throws(StoreError) {
        var saved = saved
        if unread.current {
            let again = load()
            guard again.unreadable.isEmpty else {
                throw StoreError(
                    description: again.unreadable.joined(separator: "; ") + "; nothing is written over it until it can be read")
            }
            let record = saved.antiRollback.merged(with: again.antiRollback)
            saved.highestVersion = record.highestVersion
            saved.revoked = record.revoked
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(Envelope(schema: DeliveryStore.schema, saved: saved))
        } catch {
            throw StoreError(description: "encoding failed: \(error)")
        }
        let record = saved.antiRollback.encoded()
        do {
            try AtomicFile.write(record, to: guardURL, permissions: 0o600, creatingDirectory: true)
            try AtomicFile.write(data, to: url, permissions: 0o600, creatingDirectory: true)
        } catch {
            throw StoreError(description: error.description)
        }
        if let vault {
            do { try vault.write(record) } catch {
                throw StoreError(description: "the anti-rollback vault could not be written (\(error))")
            }
        }
    }
}
