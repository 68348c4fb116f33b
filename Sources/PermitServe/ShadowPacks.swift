import Foundation
import PermitCore

/// Copies of the pack with the page's unsaved edits written in, so that every evaluation
/// (tests, timeline, decide, copy, compare, bundle) runs the edited text through the same
/// public, file-based entry points `permit test`, `permit decide` and `permit bundle` use:
/// whatever a pack's scenarios, copy files or models refer to beside the policy is there too.
///
/// A copy is named by a fingerprint of the edits and of the pack's files (path, size, time),
/// so the same text is copied once however many requests evaluate it, and an edit made on
/// disk (a scenario changed in another editor) gives a new copy. The last few are kept; the
/// rest are removed. Everything lives under one temporary folder, removed when the server stops.
final class ShadowPacks: @unchecked Sendable {
    /// The most bytes a pack may hold to be copied: a pack is a policy and its scenarios.
    static let maximumPackBytes = 32 << 20
    /// How many copies are kept.
    static let kept = 6

    let folder: PackFolder
    let base: URL
    private let lock = NSLock()
    private var recent: [String] = []

    /// A store of copies of `folder`'s pack under a new temporary folder.
    init(folder: PackFolder) throws {
        self.folder = folder
        base = FileManager.default.temporaryDirectory.appendingPathComponent("permit-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    /// Removes every copy.
    func removeAll() {
        try? FileManager.default.removeItem(at: base)
    }

    /// The folder a copy's paths are shown relative to (its parent), and the copy's pack folder.
    struct Copy {
        let root: URL
        let pack: URL
        var policy: URL { pack.appendingPathComponent("policy.lua") }
    }

    /// The copy of the pack with `edits` (path in the pack → text) written in.
    func copy(with edits: [String: String]) throws -> Copy {
        for path in edits.keys { _ = try folder.file(path) }
        let key = try fingerprint(edits)
        let root = base.appendingPathComponent(key)
        let copy = Copy(root: root, pack: root.appendingPathComponent(folder.name))
        lock.lock()
        defer { lock.unlock() }
        if !FileManager.default.fileExists(atPath: copy.pack.path) {
            let building = base.appendingPathComponent(key + ".building")
            try? FileManager.default.removeItem(at: building)
            try FileManager.default.createDirectory(at: building, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folder.root, to: building.appendingPathComponent(folder.name))
            for (path, text) in edits {
                let target = building.appendingPathComponent(folder.name).appendingPathComponent(path)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: target)
            }
            try FileManager.default.moveItem(at: building, to: root)
        }
        recent.removeAll { $0 == key }
        recent.append(key)
        while recent.count > Self.kept {
            try? FileManager.default.removeItem(at: base.appendingPathComponent(recent.removeFirst()))
        }
        return copy
    }

    /// A fingerprint of the edits and of every file of the pack (path, size, modification time).
    func fingerprint(_ edits: [String: String]) throws -> String {
        var text = ""
        for (path, content) in edits.sorted(by: { $0.key < $1.key }) {
            text += "edit \(path) \(PackFolder.version(of: Data(content.utf8)))\n"
        }
        var total = 0
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        let walker = FileManager.default.enumerator(at: folder.root, includingPropertiesForKeys: keys)
        while let url = walker?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: Set(keys))
            guard values?.isRegularFile == true else { continue }
            total += values?.fileSize ?? 0
            let time = values?.contentModificationDate?.timeIntervalSince1970 ?? 0
            text += "file \(url.path) \(values?.fileSize ?? 0) \(time)\n"
        }
        guard total <= Self.maximumPackBytes else {
            throw PackFolder.PathError(
                description:
                    "the pack holds \(total) bytes, more than the playground copies (\(Self.maximumPackBytes)); move large files out of it")
        }
        return PackFolder.version(of: Data(text.utf8))
    }
}
