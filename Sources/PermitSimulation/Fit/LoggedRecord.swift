import Foundation
import PermitCore

/// One line of an app's decision log as `permit simulate --records` writes it and `permit fit`
/// reads it: the documented `DecisionRecord`, unchanged, under `record`, with what the app's own
/// logger adds to tell users and platforms apart (the record itself names neither):
///
///     {"install":"sim-1-42","locale":"en","os":"17.5","record":{...},"user":"sim-1-42"}
///
/// - `install`: an id of this install (new after the app is deleted and installed again, as
///   `identifierForVendor` usually is);
/// - `user`: an id that survives a reinstall (a Keychain item), or `null` when the app keeps none;
///   only with it can a reinstall be seen at all;
/// - `os`: the iOS version; `locale`: the device locale (BCP 47).
///
/// A wrapper, not keys added to the record: the record is a versioned contract whose keys only
/// its schema adds, and an analytics pipeline that stores records as they are keeps doing so.
public struct LoggedRecord: Sendable, Encodable {
    /// The install's id.
    public var install: String
    /// The id that survives a reinstall, if the app keeps one.
    public var user: String?
    /// The iOS version, e.g. "17.5".
    public var os: String
    /// The device locale.
    public var locale: String
    /// The decision record.
    public var record: DecisionRecord

    /// A simulated user's line: the install id is the user's, with `-r1`, `-r2`… after each
    /// reinstall, and the user id the same for every install of theirs.
    init(user: String?, reinstalls: Int, os: OSVersion, locale: String, record: DecisionRecord) {
        let id = user ?? "install"
        self.install = reinstalls == 0 ? id : "\(id)-r\(reinstalls)"
        self.user = user
        self.os = os.description
        self.locale = locale
        self.record = record
    }

    /// The keys of a line, sorted as the line writes them.
    public static let fieldNames = ["install", "locale", "os", "record", "user"]

    private enum CodingKeys: String, CodingKey { case install, user, os, locale, record }

    /// The line's keys: `install`, `user`, `os`, `locale`, and the record itself.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(install, forKey: .install)
        try c.encode(user, forKey: .user)  // `null` when absent: every key is always present
        try c.encode(os, forKey: .os)
        try c.encode(locale, forKey: .locale)
        try c.encode(record, forKey: .record)
    }
}

/// Where `permit simulate --records` puts the records while blocks of users run in parallel:
/// each block's lines go to a temporary file of its own as each user finishes (so memory holds
/// one user's records at a time), and `finish` joins the files in policy and block order, so
/// the file is the same for a seed whatever the number of workers.
public final class RecordLog: Sendable {
    /// The file the joined records go to.
    public let destination: URL
    private let directory: URL
    private let failure = Locked<String?>(nil)

    /// A log that will write `destination` when finished.
    public init(destination: URL) throws {
        self.destination = destination
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("permit-records-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    private func part(policy: Int, block: Int) -> URL {
        directory.appendingPathComponent("\(policy)-\(block).jsonl")
    }

    /// Appends one user's records to its block's file (called by the one task running the block).
    func append(_ records: [LoggedRecord], policy: Int, block: Int) {
        guard !records.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        do {
            for record in records {
                data.append(try encoder.encode(record))
                data.append(0x0A)
            }
            let url = part(policy: policy, block: block)
            if !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        } catch {
            failure.withLock { if $0 == nil { $0 = "cannot write the records: \(error.localizedDescription)" } }
        }
    }

    /// Joins the blocks' files into `destination` (replacing it), policy by policy, block by block.
    public func finish(policies: Int, users: Int) throws(RecordLogError) {
        if let message = failure.current { throw RecordLogError(message: message) }
        let blocks = (users + SimulationOptions.blockSize - 1) / SimulationOptions.blockSize
        let manager = FileManager.default
        do {
            if manager.fileExists(atPath: destination.path) { try manager.removeItem(at: destination) }
            guard manager.createFile(atPath: destination.path, contents: nil) else {
                throw RecordLogError(message: "\(destination.path): cannot create the file")
            }
            let out = try FileHandle(forWritingTo: destination)
            defer { try? out.close() }
            for policy in 0..<policies {
                for block in 0..<blocks {
                    let url = part(policy: policy, block: block)
                    guard manager.fileExists(atPath: url.path) else { continue }
                    let input = try FileHandle(forReadingFrom: url)
                    defer { try? input.close() }
                    while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                        try out.write(contentsOf: chunk)
                    }
                }
            }
        } catch let error as RecordLogError {
            throw error
        } catch {
            throw RecordLogError(message: "\(destination.path): \(error.localizedDescription)")
        }
    }
}

/// The records could not be written.
public struct RecordLogError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the file.
    public let message: String
    /// The message, as the command prints it.
    public var description: String { message }
}
