import Foundation

/// A scratch tree of packs and loose files, in the temporary folder.
public struct Tree: Sendable {
    public let root: URL

    public init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("permit-tree-\(UUID().uuidString)")
    }

    public func write(_ path: String, _ text: String) {
        let url = root.appendingPathComponent(path)
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Atomically, as editors save: a watcher polling while a test rewrites a file (WatchTests'
        // editor thread) must never read it half-written (it failed "the file is empty" under load).
        try! Data(text.utf8).write(to: url, options: .atomic)
    }

    public func path(_ relative: String = "") -> String { root.appendingPathComponent(relative).path }
}

/// A scenario that passes against the polite policy, and one that fails against it.
public let passing =
    "name: passes\ndevice: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: x, expect: soft_prompt }\n  - { answer: decline }\n"
public let failing =
    "name: fails\ndevice: { os: \"16.0\" }\nsteps:\n  - { event: feature_opened, feature: x, expect: none }\n  - { answer: decline }\n"
