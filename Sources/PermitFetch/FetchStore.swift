import Foundation
import PermitCore

/// What the fetcher remembers between launches, in `bundle-fetcher.json` beside the policy
/// source's files: the validators of the bundle serving (so a cold start asks "changed since?"
/// instead of downloading again), the last check (so relaunching does not skip the minimum
/// interval) and the failures and backoff (so relaunching does not skip the backoff).
struct FetchMemory: Codable, Sendable, Equatable {
    /// The address the validators are for: another address starts without them.
    var url: String
    var etag: String?
    var lastModified: String?
    /// The bundle version the validators came with: they are sent only while it serves.
    var version: Int64?
    var lastCheck: Date?
    var lastSuccess: Date?
    var consecutiveFailures = 0
    var backingOffUntil: Date?

    init(url: URL) { self.url = url.absoluteString }
}

/// Reads and writes `bundle-fetcher.json`: written whole or not at all (`AtomicFile`), mode
/// 0600. A file this version cannot read is moved aside as `bundle-fetcher.json.damaged-<time>`
/// and reported; the fetcher then starts afresh, which costs one download and nothing else
/// (the policy source keeps the bundle and the anti-rollback state).
struct FetchStore: Sendable {
    static let fileName = "bundle-fetcher.json"
    static let schema = 1

    let file: URL

    init(directory: URL) { file = directory.appendingPathComponent(FetchStore.fileName) }

    private struct Envelope: Codable {
        var schema: Int
        var memory: FetchMemory
    }

    /// The saved memory, or `nil` (with a warning when a file was there and unreadable).
    func load() -> (memory: FetchMemory?, warning: String?) {
        guard FileManager.default.fileExists(atPath: file.path) else { return (nil, nil) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        if let data = FileManager.default.contents(atPath: file.path),
            let envelope = try? decoder.decode(Envelope.self, from: data), envelope.schema == FetchStore.schema
        {
            return (envelope.memory, nil)
        }
        return (nil, "\(file.path) is unreadable; \(moveAside()); the next check downloads the bundle again")
    }

    /// Writes the memory; returns why it could not, or `nil`.
    func save(_ memory: FetchMemory) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            let data = try encoder.encode(Envelope(schema: FetchStore.schema, memory: memory))
            try AtomicFile.write(data, to: file, permissions: 0o600, creatingDirectory: true)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Moves the file to a free `<file>.damaged-<time>` name.
    private func moveAside() -> String {
        let stamp = Int64(Date().timeIntervalSince1970)
        var aside = file.appendingPathExtension("damaged-\(stamp)")
        var counter = 1
        while FileManager.default.fileExists(atPath: aside.path) {
            aside = file.appendingPathExtension("damaged-\(stamp)-\(counter)")
            counter += 1
        }
        return (try? FileManager.default.moveItem(at: file, to: aside)) != nil
            ? "moved it to \(aside.lastPathComponent)" : "could not move it aside"
    }
}
