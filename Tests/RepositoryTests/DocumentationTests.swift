import Foundation
import PermitTestSupport
import Testing

@testable import PermitCore

@Suite struct DocumentationTests {
    static let repository = Repository.root

    /// The guardrails the guide lists, in its order, are exactly the ones the code applies.
    @Test func theGuideListsTheGuardrailsOfTheCode() throws {
        let guide = try String(contentsOf: Self.repository.appendingPathComponent("docs/guide.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "<!-- guardrails"))
        let end = try #require(guide.range(of: "<!-- end guardrails -->"))
        let section = guide[start.upperBound..<end.lowerBound]
        let names = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("- `"), let close = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<close])
        }
        #expect(names == Guardrail.allCases.map(\.rawValue))
    }

    /// README's Requirements are the versions the manifest needs: the minimum iOS of
    /// `platforms`, and the Swift and Xcode of the tools version (a tools version Xcode first
    /// reads in the release this table names).
    @Test func theRequirementsAreTheManifests() throws {
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Requirements\n"))
        let rest = readme[start.upperBound...]
        let requirements = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let iOS = try #require(manifest.firstMatch(of: /\.iOS\(\.v(\d+)\)/)?.1)
        #expect(requirements.contains("**iOS \(iOS) or later**"), "README's Requirements must state Package.swift's iOS \(iOS)")
        let tools = try #require(manifest.firstMatch(of: /swift-tools-version:(\d+\.\d+)/)?.1)
        let xcode = ["6.2": "26"][String(tools)]
        #expect(xcode != nil, "tools version \(tools): name the Xcode that reads it here and in README's Requirements")
        #expect(requirements.contains("**Swift \(tools) or later**") && requirements.contains("**Xcode \(xcode ?? "?")**"))
    }

    /// The pages people read and paste from: README.md, every page under docs/, and the iOS
    /// example's README.
    static func pages() throws -> [String] {
        var pages = ["README.md", "examples/ios/README.md"]
        let docs = repository.appendingPathComponent("docs")
        let walker = try #require(FileManager.default.enumerator(atPath: docs.path))
        for case let path as String in walker where path.hasSuffix(".md") { pages.append("docs/" + path) }
        return pages.sorted()
    }

    /// Every Swift block of every page is held to a compiled file: it is marked
    /// `<!-- snippet: FILE -->`, and it is, character for character, the region of FILE between
    /// `// snippet: begin` and `// snippet: end` (less the region's common indentation). FILE is
    /// compiled with the package (examples/host is the `permit-host-example` target), so the
    /// pages' code cannot stop compiling unnoticed, and a new Swift block on a page cannot be
    /// added without its compiled file.
    @Test func everySwiftBlockOfThePagesIsACompiledFile() throws {
        var held = 0
        for page in try Self.pages() {
            let text = try String(contentsOf: Self.repository.appendingPathComponent(page), encoding: .utf8)
            for line in Self.unheldSwiftBlocks(in: text) {
                Issue.record(
                    """
                    \(page):\(line): a Swift block without `<!-- snippet: FILE -->` above it; put the code in a \
                    compiled file (examples/host) between `// snippet: begin` and `// snippet: end`, and mark the block with it
                    """)
            }
            for (path, block) in Self.markedSnippets(in: text) {
                let compiled = path.hasPrefix("examples/host/") && path.hasSuffix(".swift")
                #expect(compiled, "\(page): \(path) is not a file the package compiles (examples/host)")
                let source = try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
                let region = try #require(Self.region(of: source), "\(path) has no `// snippet: begin` ... `// snippet: end`")
                #expect(block == region, "\(page)'s block from \(path) differs from the file; copy the region again")
                held += 1
            }
        }
        // README's library use, docs/bundles.md's app code and fetcher, the reference's app event.
        #expect(held >= 4)
    }

    /// The snippet check finds a block that drifted, and a Swift block held to no file.
    @Test func aDriftedOrUnheldSnippetIsFound() throws {
        let readme = "<!-- snippet: a.swift -->\n```swift\nlet a = 1\n```\n"
        let snippets = Self.markedSnippets(in: readme)
        #expect(snippets.map(\.path) == ["a.swift"])
        #expect(snippets.first?.block == "let a = 1\n")
        #expect(Self.region(of: "x\n// snippet: begin\nlet a = 2\n// snippet: end\n") == "let a = 2\n")
        #expect(Self.region(of: "f {\n    // snippet: begin\n    let a = 2\n      b\n\n    // snippet: end\n}\n") == "let a = 2\n  b\n\n")
        #expect(Self.unheldSwiftBlocks(in: readme).isEmpty)
        let page = "text\n\n```swift\nlet b = 2\n```\n\n```sh\nmake test\n```\n" + readme
        #expect(Self.unheldSwiftBlocks(in: page) == [3])
    }

    /// The 1-based lines of the ```swift fences not directly under a `<!-- snippet: FILE -->` line.
    static func unheldSwiftBlocks(in markdown: String) -> [Int] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.indices.filter { index in
            lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```swift")
                && !(index > 0 && lines[index - 1].hasPrefix("<!-- snippet: ") && lines[index - 1].hasSuffix(" -->"))
        }.map { $0 + 1 }
    }

    /// (file, block) for each `<!-- snippet: FILE -->` line followed by a fenced block.
    static func markedSnippets(in markdown: String) -> [(path: String, block: String)] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [(String, String)] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("<!-- snippet: ") && line.hasSuffix(" -->") {
            let path = line.dropFirst("<!-- snippet: ".count).dropLast(" -->".count)
            guard index + 1 < lines.count, lines[index + 1].hasPrefix("```") else { continue }
            let body = lines[(index + 2)...].prefix { $0 != "```" }
            found.append((String(path), body.map { $0 + "\n" }.joined()))
        }
        return found
    }

    /// The lines between the `// snippet: begin` and `// snippet: end` lines, each ending in a
    /// newline, less the indentation of the `begin` marker (a region inside a function reads on
    /// the page as it would at the top level).
    static func region(of source: String) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        func marker(_ name: String) -> (Array<Substring>.Index) -> Bool {
            { lines[$0].trimmingCharacters(in: .whitespaces) == "// snippet: " + name }
        }
        guard let begin = lines.indices.first(where: marker("begin")),
            let end = lines.indices[(begin + 1)...].first(where: marker("end"))
        else { return nil }
        let indent = lines[begin].prefix { $0 == " " }.count
        return lines[(begin + 1)..<end].map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) + "\n" }.joined()
    }
}
