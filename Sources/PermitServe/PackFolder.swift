import Foundation
import PermitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The pack's folder as the playground may touch it: the files it edits (`policy.lua` and
/// `copy/<locale>.yaml`), read and written only inside the folder.
///
/// A path from the page is never trusted: it must be relative, without `.` or `..` parts, name
/// one of the editable files, and no part of it may be a symbolic link (checked with `lstat`,
/// so a link planted inside the pack cannot lead a save out of it). The folder itself is
/// resolved once, at launch, to its real path. Writes are atomic (`AtomicFile`): a reader sees
/// the old file or the new one, whole.
public struct PackFolder: Sendable {
    /// The pack's folder, its real path (links resolved at launch).
    public let root: URL

    /// A path the page sent that the playground refuses, and why.
    public struct PathError: Error, Sendable, CustomStringConvertible {
        /// Why, in words for the page.
        public let description: String
    }

    /// The folder at `root`, resolved to its real path; it must hold a `policy.lua`.
    public init(root: URL) throws(PathError) {
        guard let real = realpath(root.path, nil) else {
            throw PathError(description: "\(root.path): no such folder")
        }
        defer { free(real) }
        let resolved = URL(fileURLWithPath: String(cString: real), isDirectory: true)
        guard FileManager.default.fileExists(atPath: resolved.appendingPathComponent("policy.lua").path) else {
            throw PathError(description: "\(root.path): a pack folder needs a policy.lua")
        }
        self.root = resolved
    }

    /// The pack's name: its folder's.
    public var name: String { root.lastPathComponent }

    /// The editable files, relative to the folder: `policy.lua`, then `copy/*.yaml` sorted.
    public func editableFiles() -> [String] {
        var files = ["policy.lua"]
        let copy = root.appendingPathComponent("copy")
        if (try? checkNoLinks(["copy"], endingInFolder: true)) != nil,
            let names = try? FileManager.default.contentsOfDirectory(atPath: copy.path)
        {
            files += names.filter { Self.isCopyFileName($0) }.sorted().map { "copy/" + $0 }
        }
        return files
    }

    /// Whether `name` is a copy file's name: `<locale>.yaml`, the locale letters, digits and `-`.
    static func isCopyFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".yaml") else { return false }
        let stem = name.dropLast(5)
        return !stem.isEmpty && stem.count <= 35 && stem.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The file `path` names inside the folder, after every check; refused otherwise.
    public func file(_ path: String) throws(PathError) -> URL {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0") else {
            throw PathError(description: "\(path): not a path inside the pack")
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw PathError(description: "\(path): a path with . or .. parts could leave the pack; refused")
        }
        let isPolicy = parts == ["policy.lua"]
        let isCopy = parts.count == 2 && parts[0] == "copy" && Self.isCopyFileName(parts[1])
        guard isPolicy || isCopy else {
            throw PathError(description: "\(path): the playground edits policy.lua and copy/<locale>.yaml only")
        }
        try checkNoLinks(parts)
        return root.appendingPathComponent(path)
    }

    /// Refuses a path any part of which is a symbolic link (or something other than a folder
    /// on the way and, where it exists, a regular file at the end, or a folder when
    /// `endingInFolder`).
    func checkNoLinks(_ parts: [String], endingInFolder: Bool = false) throws(PathError) {
        var current = root.path
        for (index, part) in parts.enumerated() {
            current += "/" + part
            var info = stat()
            guard lstat(current, &info) == 0 else { return }  // missing: nothing to follow
            let kind = info.st_mode & S_IFMT
            if kind == S_IFLNK {
                throw PathError(
                    description:
                        "\(parts.joined(separator: "/")): \(parts[...index].joined(separator: "/")) is a symbolic link, which could lead out of the pack; refused"
                )
            }
            let last = index == parts.count - 1
            let expected = last && !endingInFolder ? S_IFREG : S_IFDIR
            if kind != expected {
                throw PathError(description: "\(parts.joined(separator: "/")): not a regular file in the pack")
            }
        }
    }

    /// The text of `path` and its version, or nil when it does not exist.
    public func read(_ path: String) throws(PathError) -> (text: String, version: String)? {
        let url = try file(path)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PathError(description: "\(path): not UTF-8 text; the playground edits text files only")
        }
        return (text, Self.version(of: data))
    }

    /// A short fingerprint of a file's bytes (FNV-1a, 64 bits, and the length): it tells the
    /// version a page opened from the one on disk now, which is all it is for.
    public static func version(of data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16) + "-" + String(data.count)
    }

    /// What a save did.
    public enum SaveOutcome: Sendable, Equatable {
        /// Written; the file's new version.
        case saved(version: String)
        /// The file on disk is not the one the page opened: nothing written.
        case stale(diskVersion: String?)
    }

    /// Writes `text` to `path` atomically, but only when the file on disk is still the version
    /// the page opened (`base`); a file changed on disk since is never overwritten.
    public func save(_ text: String, to path: String, base: String) throws(PathError) -> SaveOutcome {
        let url = try file(path)
        let disk = FileManager.default.contents(atPath: url.path).map(Self.version(of:))
        guard disk == base else { return .stale(diskVersion: disk) }
        let data = Data(text.utf8)
        do {
            try AtomicFile.write(data, to: url)
        } catch {
            throw PathError(description: "\(path): cannot write (\(error.reason))")
        }
        return .saved(version: Self.version(of: data))
    }
}
