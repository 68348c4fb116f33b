import Foundation
import Yams

/// One attack of the red-team battery: a class (what it tries), a name, and what it feeds Permit.
struct Attack: Sendable {
    enum Input: Sendable {
        /// A policy file whose `decide` (or load) attacks; run through `permit decide` and, when
        /// that ended cleanly, in-process through `LuaPolicy` to time the call itself. `copy`:
        /// the pack's copy files beside it (`en.yaml` → `copy/en.yaml`), read by both, for the
        /// attacks through `permit.copy`.
        case policy(String, copy: [String: String])
        /// A scenario played with `permit run` against the polite pack.
        case scenario(String)
        /// A scenario played with `permit run` against a policy of its own.
        case played(policy: String, scenario: String)
        /// A ledger file given to `permit decide POLICY --history FILE --event app_launch`;
        /// POLICY is a pack path, or a policy's source when it holds `decide`.
        case history(ledger: String, policy: String)
        /// `permit test` writing its lcov coverage to a FIFO no process reads: the CLI must
        /// refuse, and the FIFO must still be a FIFO afterwards (not replaced by a file).
        case fifoOutput
        /// Files written into the case's directory, then `permit` run with each argument list
        /// in turn (`{dir}` is the directory); the last run's output is judged.
        case commands(files: [String: String], runs: [[String]])
        /// A policy file given to `permit check` (its load, main chunk included, attacks), then
        /// loaded in-process to time the load.
        case check(String)
    }

    var attackClass: String
    var name: String
    var input: Input
    /// Text the CLI's output must contain for the outcome to count as the typed error.
    var expected: [String]
}

/// The battery, read from its fixtures: `attacks/battery.yaml` beside this file lists the
/// cases in order and names their input files (its header says how). The Lua guard tests read
/// the same files, so the reproducers exist once.
enum Battery {
    /// The fixtures' folder, found from this source file as the tests find it from theirs.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("attacks")
    static let manifest = folder.appendingPathComponent("battery.yaml")

    /// A case of the manifest as written.
    struct Entry: Decodable {
        var attackClass: String
        var name: String
        var expect: [String]
        var policy: String?
        var check: String?
        var scenario: String?
        var history: String?
        var pack: String?
        var files: String?
        var copy: String?
        var runs: [[String]]?
        var coverageToFifo: Bool?
        var with: [String: Fill]?

        enum CodingKeys: String, CodingKey {
            case attackClass = "class"
            case name, expect, policy, check, scenario, history, pack, files, copy, runs, with
            case coverageToFifo = "coverage_to_fifo"
        }
    }

    /// What fills a `{{NAME}}` placeholder: a value, or a text repeated (the inputs too big to
    /// keep as files).
    enum Fill: Decodable {
        case value(String)
        case repeated(String, times: Int)

        enum CodingKeys: String, CodingKey { case `repeat`, times }

        init(from decoder: any Decoder) throws {
            if let value = try? decoder.singleValueContainer().decode(String.self) {
                self = .value(value)
                return
            }
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            self = .repeated(try fields.decode(String.self, forKey: .repeat), times: try fields.decode(Int.self, forKey: .times))
        }

        var text: String {
            switch self {
            case .value(let value): value
            case .repeated(let piece, let times): String(repeating: piece, count: max(0, times))
            }
        }
    }

    struct ManifestError: Error, CustomStringConvertible {
        var description: String
    }

    /// Every case of the manifest, in its order; a clear error naming the file and the case
    /// when the manifest or a file it names is wrong.
    static func load() throws -> [Attack] {
        let text: String
        do { text = try String(contentsOf: manifest, encoding: .utf8) } catch {
            throw ManifestError(description: "\(manifest.path): cannot be read (\(error.localizedDescription))")
        }
        let entries: [Entry]
        do { entries = try YAMLDecoder().decode([Entry].self, from: text) } catch {
            throw ManifestError(description: "\(manifest.path): \(error)")
        }
        return try entries.enumerated().map { index, entry in
            do { return try attack(entry) } catch {
                throw ManifestError(description: "\(manifest.path): case \(index + 1) (\(entry.name)): \(error)")
            }
        }
    }

    static func attack(_ entry: Entry) throws -> Attack {
        let fills = entry.with ?? [:]
        func read(_ path: String) throws -> String {
            var text: String
            do { text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8) } catch {
                throw ManifestError(description: "\(path) cannot be read (\(error.localizedDescription))")
            }
            for (name, fill) in fills { text = text.replacingOccurrences(of: "{{\(name)}}", with: fill.text) }
            if let open = text.range(of: "{{") {
                let name = text[open.upperBound...].prefix { $0 != "}" }
                throw ManifestError(description: "\(path) has the placeholder {{\(name)}}, which `with:` does not fill")
            }
            return text
        }
        let input: Attack.Input
        switch (entry.policy, entry.check, entry.scenario, entry.history, entry.files) {
        case (let policy?, nil, let scenario?, nil, nil): input = .played(policy: try read(policy), scenario: try read(scenario))
        case (let policy?, nil, nil, nil, nil):
            let copy = try entry.copy.map { folder in try files(under: folder).reduce(into: [:]) { $0[$1] = try read("\(folder)/\($1)") } }
            input = .policy(try read(policy), copy: copy ?? [:])
        case (nil, let check?, nil, nil, nil): input = .check(try read(check))
        case (nil, nil, let scenario?, nil, nil): input = .scenario(try read(scenario))
        case (let policy, nil, nil, let ledger?, nil):
            guard let source = try policy.map(read) ?? entry.pack else {
                throw ManifestError(description: "history: needs a policy: file or a pack: path")
            }
            input = .history(ledger: try read(ledger), policy: source)
        case (nil, nil, nil, nil, let folder?):
            guard let runs = entry.runs, !runs.isEmpty else { throw ManifestError(description: "files: needs runs:") }
            input = .commands(files: try files(under: folder).reduce(into: [:]) { $0[$1] = try read("\(folder)/\($1)") }, runs: runs)
        case (nil, nil, nil, nil, nil) where entry.coverageToFifo == true: input = .fifoOutput
        default:
            throw ManifestError(
                description:
                    "its input keys do not match one kind: policy, check, scenario, policy with scenario, history with policy or pack, files with runs, or coverage_to_fifo"
            )
        }
        return Attack(attackClass: entry.attackClass, name: entry.name, input: input, expected: entry.expect)
    }

    /// The files under `folder` (relative to the fixtures), as paths relative to it.
    static func files(under folder: String) throws -> [String] {
        let root = Self.folder.appendingPathComponent(folder).path
        guard let paths = try? FileManager.default.subpathsOfDirectory(atPath: root) else {
            throw ManifestError(description: "\(folder) is not a folder")
        }
        return paths.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }
}
