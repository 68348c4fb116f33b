import Foundation

/// Writes a whole file or nothing. The bytes go to a temporary file in the same directory,
/// which rename(2) then puts over the target in one step, so a reader (or the next launch after
/// a crash mid-write) sees the old file or the new one, whole. The ledger store, the policy
/// source's store and the CLI's outputs (bundles, keys) all write this way; this is the one
/// place that knows how.
public enum AtomicFile {
    /// Puts `data` at `url`, whole or not at all.
    ///
    /// - Parameters:
    ///   - data: the whole new content.
    ///   - url: the file to write; the temporary file goes in the same directory.
    ///   - permissions: POSIX permissions for the new file (`0o600` for a private key); the
    ///     temporary file is created with them, so the target never has wider ones.
    ///   - creatingDirectory: create the directory (and its parents) when it is missing.
    public static func write(
        _ data: Data, to url: URL, permissions: Int? = nil, creatingDirectory: Bool = false
    ) throws(AtomicFileError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            if creatingDirectory {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            guard FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: permissions.map { [.posixPermissions: $0] })
            else {
                throw AtomicFileError(path: url.path, reason: String(cString: strerror(errno)))
            }
        } catch let error as AtomicFileError {
            throw error
        } catch {
            throw AtomicFileError(path: url.path, reason: error.localizedDescription)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw AtomicFileError(path: url.path, reason: reason)
        }
    }
}

/// A file `AtomicFile` could not write; the old file, if any, is untouched.
public struct AtomicFileError: Error, Sendable, CustomStringConvertible {
    /// The file that was to be written.
    public var path: String
    /// Why, as the system put it (`Permission denied`, `No such file or directory`).
    public var reason: String

    /// `path: reason`, for messages.
    public var description: String { "\(path): \(reason)" }
}
