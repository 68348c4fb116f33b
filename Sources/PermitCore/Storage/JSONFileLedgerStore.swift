import Foundation

/// Keeps the ledger in a JSON file with a schema version.
///
/// Writes go to a temporary file in the same directory that is then renamed over the old one,
/// so a crash mid-write leaves the old file intact. A file whose content is not a ledger (empty,
/// damaged, written by a newer schema) is moved aside as `<name>.damaged-<timestamp>` — never
/// silently overwritten — and the load reports it and starts clean.
///
/// A file that cannot be read at all is not damaged: on a locked device its Data Protection
/// class keeps it unreadable (before the first unlock, or while locked when the class is
/// `complete`), and a permission or an I/O error says nothing of its content either. The load
/// then leaves it in place and reports it `unavailable`, and saves are refused until a load
/// reads it. The file is written with the class `completeUntilFirstUserAuthentication` on iOS,
/// whatever the app's default class: readable in background launches after the first unlock.
///
/// One store owns its file: it holds an exclusive lock (`<name>.lock`, `flock(2)`) for its
/// lifetime, so a second engine pointed at the same location — in this process or another — is
/// refused with a clear error instead of silently losing the other's updates. The kernel drops
/// the lock when the process ends, so a crash never leaves it stuck.
public final class JSONFileLedgerStore: LedgerStore {
    /// The ledger file.
    public let url: URL
    /// Set when an unreadable file could be neither moved nor copied aside: saving would
    /// destroy the only copy, so saves are refused until someone removes it.
    private let protectedFile = Locked<String?>(nil)
    /// The open lock file, or -1 when the location could not be locked (read-only directory).
    private let lockDescriptor: Int32
    private let lockWarning: String?
    /// Set while the last load could not read the file (not damage): saves would put an empty
    /// ledger over history, so they are refused until a load reads it.
    private let unreadFile = Locked<String?>(nil)
    /// How the file's bytes are read (a test injects a failure).
    private let read: @Sendable (URL) throws -> Data

    /// Opens the store at `url`, taking its lock.
    /// - Throws: `LedgerStoreError` when another store (another engine) holds the location.
    public convenience init(url: URL) throws(LedgerStoreError) {
        try self.init(url: url, reading: { try Data(contentsOf: $0) })
    }

    /// A store whose reads go through `read`, so that a test can make them fail as a locked
    /// device does.
    init(url: URL, reading read: @escaping @Sendable (URL) throws -> Data) throws(LedgerStoreError) {
        self.url = url
        self.read = read
        let lockPath = url.path + ".lock"
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            // A read-only or missing location: the ledger can still be read; saves will report.
            lockDescriptor = -1
            lockWarning =
                "could not create the lock file \(lockPath) (\(String(cString: strerror(errno)))); "
                + "engines sharing this location would not be detected"
            return
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw LedgerStoreError(
                location: url.path,
                reason: busy
                    ? "another engine is using this ledger (\(lockPath) is locked); give each engine its own store location, or send every event to one engine"
                    : "could not lock \(lockPath): \(reason)")
        }
        lockDescriptor = descriptor
        lockWarning = nil
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }  // closing releases the flock
    }

    /// Reads the file; a missing file is a fresh ledger, a damaged one is set aside and reported.
    public func load() -> LedgerLoadResult {
        var result = loadLedger()
        if let lockWarning { result.warnings.append(lockWarning) }
        return result
    }

    private func loadLedger() -> LedgerLoadResult {
        guard FileManager.default.fileExists(atPath: url.path) else {
            unreadFile.withLock { $0 = nil }
            return LedgerLoadResult(ledger: Ledger())
        }
        let data: Data
        do {
            data = try read(url)
        } catch {
            let reason = "ledger \(url.path) could not be read (\(error.localizedDescription)); it is left as it is"
            unreadFile.withLock { $0 = reason }
            return LedgerLoadResult(ledger: Ledger(), unavailable: reason)
        }
        unreadFile.withLock { $0 = nil }
        switch LedgerCoding.decode(data) {
        case .success(let ledger): return LedgerLoadResult(ledger: ledger)
        case .failure(let failure): return setAside(because: failure.reason)
        }
    }

    /// Writes the ledger atomically (temporary file, then rename).
    public func save(_ ledger: Ledger) throws(LedgerStoreError) {
        if let reason = unreadFile.current {
            throw LedgerStoreError(location: url.path, reason: "\(reason) until it can be read again")
        }
        if let reason = protectedFile.current, FileManager.default.fileExists(atPath: url.path) {
            throw LedgerStoreError(
                location: url.path,
                reason: "the existing file is unreadable (\(reason)) and could not be set aside; move it away to let Permit write")
        }
        let data: Data
        do {
            data = try LedgerCoding.encode(ledger)
        } catch {
            throw LedgerStoreError(location: url.path, reason: "encoding failed: \(error)")
        }
        do {
            try AtomicFile.write(data, to: url, creatingDirectory: true, protection: .untilFirstUnlock)
        } catch {
            throw LedgerStoreError(location: url.path, reason: error.reason)
        }
    }

    /// Moves the unreadable file aside (or copies it, if it cannot be moved) and starts clean.
    private func setAside(because reason: String) -> LedgerLoadResult {
        let stamp = Int64(Date().timeIntervalSince1970)
        var aside = url.appendingPathExtension("damaged-\(stamp)")
        var suffix = 1
        while FileManager.default.fileExists(atPath: aside.path) {
            aside = url.appendingPathExtension("damaged-\(stamp)-\(suffix)")
            suffix += 1
        }
        let kept: String
        if (try? FileManager.default.moveItem(at: url, to: aside)) != nil {
            kept = "moved it to \(aside.lastPathComponent)"
        } else if (try? FileManager.default.copyItem(at: url, to: aside)) != nil {
            kept = "copied it to \(aside.lastPathComponent)"
        } else {
            protectedFile.withLock { $0 = reason }
            return LedgerLoadResult(
                ledger: Ledger(),
                warnings: [
                    "ledger \(url.path) ignored: \(reason); it could not be moved or copied aside, "
                        + "so it is left in place and will not be overwritten (saves fail until it is removed)"
                ])
        }
        return LedgerLoadResult(
            ledger: Ledger(), warnings: ["ledger \(url.path) ignored: \(reason); \(kept); starting a new ledger"])
    }
}
