import Foundation
import PermitTestSupport
import Testing

/// PermitCore's folders refer to one another in one direction: a file uses the types of its own
/// folder and of the folders before it in `order`, never of one after it. The order is the
/// core's story told bottom up: plain support and time, the status model (with how Apple's raw
/// values map onto it), the values a policy and the engine exchange, the ledger, its storage,
/// reminders, the device client, the policy, the engine, and the Apple implementations on top.
/// A type that a lower folder needs belongs in that folder (or lower): a back-reference here
/// means a type sits in the wrong room. Reads files only.
@Suite struct CoreFolderOrderTests {
    static let core = "Sources/PermitCore"

    /// Bottom first: each folder may use the folders before it.
    static let order = [
        "Support", "Time", "Status", "Values", "Ledger", "Storage", "Reminders", "Device", "Policy", "Engine", "Apple",
    ]

    /// The uses against the order that are known and why: (from folder, to folder, type).
    /// The planner keeps to the device's rule for a full pending list (`PendingOverflow`, which
    /// the simulated device applies too), and that rule is stated over scheduled reminders.
    static let allowed: Set<String> = ["Reminders → Device: PendingOverflow"]

    /// One use of a type from another folder.
    struct Use: Hashable, CustomStringConvertible {
        var file: String
        var from: String
        var to: String
        var type: String
        var description: String { "\(file) (\(from)) uses \(type) of \(to)" }
        var rule: String { "\(from) → \(to): \(type)" }
    }

    @Test func everyFolderIsInTheOrder() throws {
        let folders = try Self.folders(at: Repository.root.appendingPathComponent(Self.core))
        #expect(Set(folders.keys) == Set(Self.order), "PermitCore's folders are \(folders.keys.sorted()); place a new one in `order`")
    }

    @Test func noFolderUsesOneAfterIt() throws {
        let folders = try Self.folders(at: Repository.root.appendingPathComponent(Self.core))
        let backward = Self.backwardUses(in: folders, order: Self.order)
        for use in backward where !Self.allowed.contains(use.rule) {
            Issue.record("\(use): move the type to the folder it belongs to, or the file to the folder it serves")
        }
        // An allowed use that no longer happens is dropped from the list, so the list stays true.
        let seen = Set(backward.map(\.rule))
        for rule in Self.allowed { #expect(seen.contains(rule), "\(rule) no longer happens; remove it from `allowed`") }
    }

    /// The check finds a planted back-reference, and not one in a comment or a string.
    @Test func aBackReferenceIsFound() {
        let folders: [String: [(String, String)]] = [
            "Low": [("Low/A.swift", "struct A { var b: B? }\n// C is mentioned\nlet s = \"C\"\n")],
            "High": [("High/B.swift", "struct B { var a: A }\nenum C {}\n")],
        ]
        let uses = Self.backwardUses(in: folders, order: ["Low", "High"])
        #expect(uses.map(\.description) == ["Low/A.swift (Low) uses B of High"])
    }

    /// The Swift files of each folder of the target at `url`, with their text (a folder's
    /// subfolders count as the folder).
    static func folders(at url: URL) throws -> [String: [(String, String)]] {
        var folders: [String: [(String, String)]] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        for name in names where !name.contains(".") {
            let folder = url.appendingPathComponent(name)
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            folders[name] = try files.filter { $0.hasSuffix(".swift") }.sorted().map {
                ("\(name)/\($0)", try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
            }
        }
        return folders
    }

    /// Every use of a type declared in a later folder, in file order.
    static func backwardUses(in folders: [String: [(String, String)]], order: [String]) -> [Use] {
        let declaration =
            #/(?m)^(?:(?:public|internal|fileprivate|private|final|indirect|@\w+)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)/#
        var home: [String: String] = [:]
        for (folder, files) in folders {
            for (_, text) in files {
                for match in code(of: text).matches(of: declaration) { home[String(match.output.1)] = folder }
            }
        }
        var uses: [Use] = []
        for folder in order {
            guard let rank = order.firstIndex(of: folder) else { continue }
            for (file, text) in folders[folder] ?? [] {
                let names = Set(code(of: text).matches(of: #/\b[A-Z]\w*\b/#).map { String($0.output) })
                for name in names.sorted() {
                    guard let other = home[name], let otherRank = order.firstIndex(of: other), otherRank > rank else { continue }
                    uses.append(Use(file: file, from: folder, to: other, type: name))
                }
            }
        }
        return uses
    }

    /// `text` without its comments and string literals, which may name any type.
    static func code(of text: String) -> String {
        text.replacing(#/"""[\s\S]*?"""/#, with: "\"\"")
            .replacing(#/\/\*[\s\S]*?\*\//#, with: " ")
            .replacing(#/"(?:\\.|[^"\\\n])*"/#, with: "\"\"")
            .replacing(#/\/\/[^\n]*/#, with: "")
    }
}
