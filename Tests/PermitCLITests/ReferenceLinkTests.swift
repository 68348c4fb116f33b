import Foundation
import PermitTestSupport
import Testing

/// The repository carries its own contract: links into docs/reference.md land on an anchor it
/// defines, and nothing cites the brief the product grew from, which a clone does not have.
@Suite struct ReferenceLinkTests {
    let reference: ReferenceTables

    init() throws { reference = try ReferenceTables() }

    /// Text files of the repository, by path relative to it (build output and git excluded).
    static func repositoryFiles() -> [(path: String, text: String)] {
        let root = ReferenceTables.repository
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else {
            return []
        }
        var files: [(String, String)] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                if name == ".git" || name.hasPrefix(".build") || name == ".swiftpm" { walker.skipDescendants() }
                continue
            }
            guard let data = FileManager.default.contents(atPath: url.path), data.count < 2_000_000,
                let text = String(data: data, encoding: .utf8)
            else { continue }
            files.append((String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)), text))
        }
        return files
    }

    /// The fragments of every link to `target` in `text` (`target#fragment`).
    static func fragments(linkingTo target: String, in text: String) -> [String] {
        // A byte search, not `range(of:)`: it is the test's whole cost (SourceScan says why).
        let after = target.utf8.count + 1
        return SourceScan.starts(of: target + "#", in: text).map { hit in
            let start = text.utf8.index(hit, offsetBy: after)
            return String(text[start...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    @Test func anchorsAreUniqueAndEveryLinkLandsOnOne() throws {
        let anchors = reference.anchors
        #expect(anchors.count == Set(anchors).count, "an anchor is defined twice")
        #expect(anchors.count > 40)
        for fragment in Self.fragments(linkingTo: "](", in: reference.text) {
            #expect(anchors.contains(fragment), "docs/reference.md links to #\(fragment), which it does not define")
        }
        var linked = 0
        for (path, text) in Self.repositoryFiles() {
            for fragment in Self.fragments(linkingTo: "reference.md", in: text) {
                linked += 1
                #expect(anchors.contains(fragment), "\(path) links to the anchor \(fragment) of reference.md, which does not exist")
            }
        }
        #expect(linked > 10, "the repository's links into the reference")
    }

    @Test func nothingCitesTheOriginalBrief() {
        // Spelled in two parts so that this file does not match itself.
        let shared = "sha" + "red/"
        let forbidden = ["SPEC" + " §", "../" + shared, shared + "SPEC"]
        for (path, text) in Self.repositoryFiles() {
            for phrase in forbidden {
                #expect(SourceScan.starts(of: phrase, in: text).isEmpty, "\(path) cites \"\(phrase)\"; link to docs/reference.md instead")
            }
        }
    }

    /// The repository speaks of the product: the project's own working sessions and issue
    /// numbers live in git and the tracker, not in code or docs. An outside tracker's issue is
    /// named with its repository (`owner/name issue 1423`) and stays.
    @Test func nothingNamesTheProjectsOwnSessionsOrIssues() {
        let session = #/(\S+ )?\b[Ss]essions? \d+/#
        let issue = #/(\S+ )?\[?\b[Ii]ssues? #?\d+/#
        for (path, text) in Self.repositoryFiles() where !path.hasPrefix("Tests/PermitCLITests/ReferenceLinkTests") {
            for line in text.split(separator: "\n") {
                let ownIssue = line.matches(of: issue).contains { !($0.output.1 ?? "").contains("/") }
                // A WWDC session is named with its year: "WWDC 2018 session 710".
                let ownSession = line.matches(of: session).contains { !($0.output.1 ?? "").hasPrefix("20") }
                let named = ownSession || ownIssue
                #expect(!named, "\(path): \"\(line.prefix(120))\" names a working session or issue; say what the code does and why")
            }
        }
    }
}
