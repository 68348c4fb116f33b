import Foundation

/// What `permit test --watch` compares between polls: each scenario file's and policy's
/// modification time and size. Polling, not file-system events, because it works the same on
/// Linux and macOS, in containers and on network mounts, for the few hundred files a suite has.
public struct WatchSnapshot: Sendable, Equatable {
    /// Modification time and size per watched file; a file that disappears drops out.
    var stamps: [URL: Stamp]

    struct Stamp: Sendable, Equatable {
        var modified: Date
        var size: Int
    }

    /// The scenario files under `paths` (as `Discovery` finds them, so new files are noticed)
    /// and the policies they run.
    public init(paths: [String], fileManager: FileManager = .default) {
        let files = (try? Discovery.scenarios(under: paths, fileManager: fileManager)) ?? []
        stamps = [:]
        for url in Set(files.map(\.url) + files.compactMap(\.packPolicy)) {
            guard let attributes = try? fileManager.attributesOfItem(atPath: url.path),
                let modified = attributes[.modificationDate] as? Date
            else { continue }
            stamps[url] = Stamp(modified: modified, size: (attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Files added, removed or changed since `earlier`, sorted.
    public func changes(since earlier: WatchSnapshot) -> [URL] {
        Set(stamps.keys).union(earlier.stamps.keys).filter { stamps[$0] != earlier.stamps[$0] }
            .sorted { $0.path < $1.path }
    }

    /// The scenarios a change touches: a changed scenario file itself, and every scenario of a
    /// pack whose `policy.lua` changed. A loose file's `policy:` may name any policy (a pack's
    /// too) and is only known after parsing, so a change to any `.lua` re-runs every loose file.
    public static func affected(_ files: [ScenarioFile], by changes: [URL]) -> [ScenarioFile] {
        let changed = Set(changes)
        let policyChanged = changes.contains { $0.pathExtension == "lua" }
        return files.filter { file in
            changed.contains(file.url) || file.packPolicy.map(changed.contains) == true
                || (file.packPolicy == nil && policyChanged)
        }
    }
}
