import Foundation
import PermitCore

/// A Permit engine version, `MAJOR.MINOR.PATCH`, compared numerically.
public struct EngineVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Grows with incompatible changes to the policy API.
    public var major: Int
    /// Grows with additions to the policy API.
    public var minor: Int
    /// Grows with fixes.
    public var patch: Int

    /// A version from its parts.
    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `1`, `1.2` or `1.2.3`; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 6, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part) else {
                return nil
            }
            numbers.append(value)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    /// The engine this library is: the policy API of docs/reference/policy.md#policy. The one
    /// definition of Permit's version: `permit --version` prints it, and `permit bundle` writes it
    /// as a bundle's `min_engine` unless told otherwise.
    public static let current = EngineVersion(0, 1, 0)

    /// `MAJOR.MINOR.PATCH`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// Compares major, then minor, then patch.
    public static func < (lhs: EngineVersion, rhs: EngineVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}

/// What a bundle says about itself; the signature covers its exact bytes.
///
/// JSON, keys sorted:
/// `{"created_at":"2026-01-05T08:00:00Z","expires_at":"2026-02-04T08:00:00Z","files":{"params.json":{"sha256":"…","size":31},"policy.lua":{"sha256":"…","size":2140}},"format":1,"min_engine":"0.1.0","pack":"polite","version":7}`
public struct BundleManifest: Sendable, Hashable {
    /// One file of the bundle: its hash and size, so a changed byte is caught before it is parsed.
    public struct FileEntry: Sendable, Hashable {
        /// Lowercase hex SHA-256 of the file's bytes.
        public var sha256: String
        /// Its size in bytes.
        public var size: Int
    }

    /// The manifest format this build writes and reads.
    public static let formatVersion = 1
    /// The files every bundle holds; `copyFileName` is the one other file a bundle may hold.
    public static let fileNames = ["params.json", "policy.lua"]
    /// The pack's copy (`PolicyCopy.encoded()`), in a bundle of a pack that has copy. Optional so
    /// that every bundle made before copy existed still reads, and its hash in the manifest
    /// puts it under the signature like the other files.
    public static let copyFileName = "copy.json"
    static let keys: Set<String> = ["created_at", "expires_at", "files", "format", "min_engine", "pack", "version"]

    /// The pack's name; an app refuses bundles of another pack.
    public var pack: String
    /// Grows with every release of the pack; an installed version is only ever replaced by a greater one.
    public var version: Int64
    /// The oldest engine that runs this policy; an older one refuses the bundle.
    public var minimumEngine: EngineVersion
    /// Whole seconds, UTC.
    public var createdAt: Date
    /// After this the bundle is refused (whole seconds, UTC): a stale policy cannot be replayed forever.
    public var expiresAt: Date?
    /// Every file of the bundle, by name.
    public var files: [String: FileEntry]

    /// Pack names: letters, digits, `-`, `_`, `.`; 1–64 of them.
    public static func isValidPackName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
            }
    }

    /// The exact bytes that are signed.
    public func encoded() -> Data {
        var fields: [String] = []
        fields.append("\"created_at\":\"\(Timestamp.format(createdAt))\"")
        if let expiresAt { fields.append("\"expires_at\":\"\(Timestamp.format(expiresAt))\"") }
        let fileFields = files.keys.sorted().map { name in
            let entry = files[name]!
            return "\"\(name)\":{\"sha256\":\"\(entry.sha256)\",\"size\":\(entry.size)}"
        }
        fields.append("\"files\":{" + fileFields.joined(separator: ",") + "}")
        fields.append("\"format\":\(BundleManifest.formatVersion)")
        fields.append("\"min_engine\":\"\(minimumEngine)\"")
        fields.append("\"pack\":\"\(pack)\"")
        fields.append("\"version\":\(version)")
        return Data(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    /// Parses manifest bytes strictly: every field known, typed and in range, and the bytes in
    /// the one canonical form `encoded()` writes.
    public static func decode(_ data: Data) throws(BundleError) -> BundleManifest {
        func bad(_ message: String) -> BundleError { BundleError(.malformed, "manifest: \(message)") }
        guard let object = try? JSONSerialization.jsonObject(with: data), let top = object as? [String: Any] else {
            throw bad("not a JSON object")
        }
        if let unknown = Set(top.keys).subtracting(keys).sorted().first {
            throw bad("unknown field \"\(unknown)\" (a newer bundle format? update the app's engine)")
        }
        guard let format = top["format"] as? Int, format == formatVersion else {
            throw bad("format must be \(formatVersion), got \(top["format"].map { "\($0)" } ?? "nothing")")
        }
        guard let pack = top["pack"] as? String, isValidPackName(pack) else { throw bad("pack: missing or not a pack name") }
        // The canonical-form check at the end refuses `7.0`, `true` and other spellings of a number.
        guard let versionValue = top["version"] as? Int, versionValue >= 1 else {
            throw bad("version: expected a whole number of at least 1")
        }
        guard let engineText = top["min_engine"] as? String, let engine = EngineVersion(engineText) else {
            throw bad("min_engine: expected a version like \"0.1.0\"")
        }
        guard let createdText = top["created_at"] as? String, let created = Timestamp.parse(createdText) else {
            throw bad("created_at: expected a UTC time like \"2026-01-05T08:00:00Z\"")
        }
        var expires: Date?
        if let value = top["expires_at"] {
            guard let text = value as? String, let date = Timestamp.parse(text) else {
                throw bad("expires_at: expected a UTC time like \"2026-02-04T08:00:00Z\"")
            }
            guard date > created else { throw bad("expires_at is not after created_at") }
            expires = date
        }
        guard let fileTable = top["files"] as? [String: Any] else { throw bad("files: expected a table") }
        var files: [String: FileEntry] = [:]
        for (name, value) in fileTable {
            guard let entry = value as? [String: Any], Set(entry.keys) == ["sha256", "size"],
                let hash = entry["sha256"] as? String, hash.utf8.count == 64, hash.utf8.allSatisfy(Hex.isLowerHexDigit),
                let size = entry["size"] as? Int, size >= 0
            else {
                throw bad("files.\(name): expected { sha256 = 64 lowercase hex digits, size = bytes }")
            }
            files[name] = FileEntry(sha256: hash, size: size)
        }
        guard files.keys.filter({ $0 != copyFileName }).sorted() == fileNames else {
            throw bad(
                "files: expected \(fileNames.joined(separator: " and ")) (and \(copyFileName) when the pack has copy), got "
                    + files.keys.sorted().joined(separator: ", "))
        }
        let manifest = BundleManifest(
            pack: pack, version: Int64(versionValue), minimumEngine: engine, createdAt: created, expiresAt: expires, files: files)
        guard manifest.encoded() == data else {
            throw bad("not in canonical form (keys sorted, no spaces, versions as written by permit bundle)")
        }
        return manifest
    }
}

/// UTC timestamps in whole seconds: `2026-01-05T08:00:00Z`.
enum Timestamp {
    static func format(_ date: Date) -> String {
        InternetDateTime.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    static func parse(_ text: String) -> Date? {
        guard let date = InternetDateTime.date(from: text), format(date) == text else { return nil }
        return date
    }
}
