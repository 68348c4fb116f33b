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

    /// The scenario files under `paths` (as `Discovery` finds them, so new files are noticed),
    /// the policies they run and the steps files they include.
    public init(paths: [String], fileManager: FileManager = .default) {
        let files = (try? Discovery.scenarios(under: paths, fileManager: fileManager)) ?? []
        stamps = [:]
        let included = files.flatMap { Self.includedFiles(of: $0.url) }
        for url in Set(files.map(\.url) + files.compactMap(\.packPolicy) + included) {
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

    /// The scenarios a change touches: a changed scenario file itself, every scenario that
    /// includes a changed steps file, and every scenario of a pack whose `policy.lua` changed. A loose file's `policy:` may name any policy (a pack's
    /// too) and is only known after parsing, so a change to any `.lua` re-runs every loose file.
    public static func affected(_ files: [ScenarioFile], by changes: [URL]) -> [ScenarioFile] {
        let changed = Set(changes)
        let policyChanged = changes.contains { $0.pathExtension == "lua" }
        let stepsChanged = changes.contains { $0.pathExtension != "lua" && !files.map(\.url).contains($0) }
        return files.filter { file in
            changed.contains(file.url) || file.packPolicy.map(changed.contains) == true
                || (file.packPolicy == nil && policyChanged)
                || (stepsChanged && includedFiles(of: file.url).contains(where: changed.contains))
        }
    }

    /// The steps files a scenario names with `include:`, found by reading its lines rather than
    /// parsing it: the watcher polls four times a second, and a file that does not parse must
    /// still be watched so that fixing what it includes re-runs it.
    static func includedFiles(of scenario: URL) -> [URL] {
        guard let text = try? String(contentsOf: scenario, encoding: .utf8), text.contains("include:") else { return [] }
        let directory = scenario.deletingLastPathComponent()
        return text.matches(of: /include:\s*["']?([^"'\s,}]+)/).map { match in
            let path = String(match.1)
            return (path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)).standardizedFileURL
        }
    }
}
