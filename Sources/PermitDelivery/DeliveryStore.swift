import Foundation
import PermitCore

/// Keeps the policy source's state in `<directory>/policy-source.json`: the bundle serving (its
/// exact bytes), the version high-water mark and the revoked versions, in one file so they can
/// never disagree.
///
/// Writes go to a temporary file in the same directory that is renamed over the old one, so a
/// crash mid-write leaves the old state whole. An unreadable file is moved aside as
/// `policy-source.json.damaged-<time>` and reported; the built-in policy then serves.
struct DeliveryStore: Sendable {
    static let schema = 1
    static let fileName = "policy-source.json"

    let directory: URL
    var url: URL { directory.appendingPathComponent(DeliveryStore.fileName) }

    struct Saved: Codable, Sendable, Equatable {
        var highestVersion: Int64?
        var revoked: [Int64]
        /// The bundle file's bytes (base64 in JSON).
        var installed: Data?
    }

    private struct Envelope: Codable {
        var schema: Int
        var saved: Saved
    }

    struct Loaded {
        var saved: Saved?
        var warning: String?
    }

    struct StoreError: Error, CustomStringConvertible {
        var description: String
    }

    func load() -> Loaded {
        guard FileManager.default.fileExists(atPath: url.path) else { return Loaded() }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return Loaded(warning: "\(url.path) could not be read; serving the built-in policy")
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.schema == DeliveryStore.schema else {
            let aside = url.appendingPathExtension("damaged-\(Int64(Date().timeIntervalSince1970))")
            let kept = (try? FileManager.default.moveItem(at: url, to: aside)) != nil
                ? "moved it to \(aside.lastPathComponent)" : "could not move it aside"
            return Loaded(warning: "\(url.path) is damaged or from a newer version; \(kept); serving the built-in policy")
        }
        return Loaded(saved: envelope.saved)
    }

    func save(_ saved: Saved) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(Envelope(schema: DeliveryStore.schema, saved: saved))
        } catch {
            throw StoreError(description: "encoding failed: \(error)")
        }
        do {
            try AtomicFile.write(data, to: url, creatingDirectory: true)
        } catch {
            throw StoreError(description: error.description)
        }
    }
}
