import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a whole file or nothing, durably. The bytes go to a new temporary file in the same
/// directory, created with its final permissions (`open` with `O_CREAT|O_EXCL` and the mode,
/// so a private key is never readable by anyone else, not even for an instant), written,
/// flushed to the disk (`fsync`), then put over the target by rename(2) in one step; the
/// directory is flushed too, so the rename itself survives a power cut. A reader (or the next
/// launch after a crash mid-write) sees the old file or the new one, whole. The ledger store,
/// the policy source's store and the CLI's outputs (bundles, keys) all write this way; this is
/// the one place that knows how.
public enum AtomicFile {
    /// Puts `data` at `url`, whole or not at all.
    ///
    /// - Parameters:
    ///   - data: the whole new content.
    ///   - url: the file to write; the temporary file goes in the same directory.
    ///   - permissions: POSIX permissions for the new file (`0o600` for a private key). The
    ///     temporary file is created with them (never wider: the umask can only narrow them
    ///     at creation, and they are then set exactly on the open file before any byte is
    ///     written), so the target never has wider ones. `nil`: `0o666` less the umask.
    ///   - creatingDirectory: create the directory (and its parents) when it is missing.
    ///   - replacing: `false` refuses to replace an existing file (`link(2)` instead of
    ///     rename, so the check and the write are one step); the error says it exists.
    ///   - protection: the Data Protection class the file gets where there is one (iOS and its
    ///     siblings), set on the temporary file before any byte is written; `nil` leaves the
    ///     app's default class.
    public static func write(
        _ data: Data, to url: URL, permissions: Int? = nil, creatingDirectory: Bool = false, replacing: Bool = true,
        protection: Protection? = nil
    ) throws(AtomicFileError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        if creatingDirectory {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw AtomicFileError(path: url.path, reason: error.localizedDescription)
            }
        }
        let mode = mode_t(permissions ?? 0o666)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw AtomicFileError(path: url.path, reason: lastError()) }
        var failure: String?
        if permissions != nil, fchmod(descriptor, mode) != 0 { failure = lastError() }
        if failure == nil, let protection { failure = protect(temporary, protection) }
        if failure == nil { failure = writeAll(data, to: descriptor) }
        if failure == nil, !flush(descriptor) { failure = lastError() }
        if close(descriptor) != 0, failure == nil { failure = lastError() }
        if let failure {
            unlink(temporary.path)
            throw AtomicFileError(path: url.path, reason: failure)
        }
        if replacing {
            guard rename(temporary.path, url.path) == 0 else {
                let reason = lastError()
                unlink(temporary.path)
                throw AtomicFileError(path: url.path, reason: reason)
            }
        } else {
            let linked = link(temporary.path, url.path) == 0
            let reason = linked ? "" : lastError()
            unlink(temporary.path)
            guard linked else { throw AtomicFileError(path: url.path, reason: reason) }
        }
        flushDirectory(directory)
    }

    /// The Data Protection class a file is written with, on the platforms that have one.
    public enum Protection: Sendable {
        /// `FileProtectionType.completeUntilFirstUserAuthentication` (iOS 5+): unreadable from
        /// a restart until the first unlock, readable after it even while locked, so background
        /// launches (a push, a refresh) read it as the foreground does.
        case untilFirstUnlock
    }

    /// Sets the class on the temporary file; `nil`, or why it failed.
    private static func protect(_ file: URL, _ protection: Protection) -> String? {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let type: FileProtectionType =
            switch protection {
            case .untilFirstUnlock: .completeUntilFirstUserAuthentication
            }
        do {
            try FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: file.path)
        } catch {
            return "could not set its data protection class (\(error.localizedDescription))"
        }
        #endif
        return nil
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> String? in
            guard var pointer = buffer.baseAddress else { return nil }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return lastError()
                }
                remaining -= written
                pointer += written
            }
            return nil
        }
    }

    /// Flushes a file's bytes to the disk: on Apple platforms `F_FULLFSYNC` (plain fsync there
    /// only reaches the drive's cache), elsewhere fsync.
    private static func flush(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        while fsync(descriptor) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Flushes the directory entry of the rename. The new file is already whole on the disk,
    /// so a directory that cannot be flushed (some file systems refuse) only risks the old
    /// file coming back after a power cut; it is not reported.
    private static func flushDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = flush(descriptor)
        close(descriptor)
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// write(2); `write` alone would name `AtomicFile.write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
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
