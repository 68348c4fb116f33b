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

    /// Every code block the README (and docs/bundles.md, for fetching bundles) marks
    /// `<!-- snippet: FILE -->` is, character for character, the region of FILE between
    /// `// snippet: begin` and `// snippet: end`. FILE is compiled with the package, so the
    /// pages' code cannot stop compiling unnoticed.
    @Test(arguments: ["README.md", "docs/bundles.md"])
    func thePagesSnippetsAreTheCompiledFiles(page: String) throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent(page), encoding: .utf8)
        let snippets = Self.markedSnippets(in: text)
        #expect(!snippets.isEmpty, "\(page) shows the library's use from a compiled file")
        for (path, block) in snippets {
            let source = try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
            let region = try #require(Self.region(of: source), "\(path) has no `// snippet: begin` ... `// snippet: end`")
            #expect(block == region, "\(page)'s block from \(path) differs from the file; copy the region again")
        }
    }

    /// The snippet check finds a block that drifted.
    @Test func aDriftedSnippetIsFound() throws {
        let readme = "<!-- snippet: a.swift -->\n```swift\nlet a = 1\n```\n"
        let snippets = Self.markedSnippets(in: readme)
        #expect(snippets.map(\.path) == ["a.swift"])
        #expect(snippets.first?.block == "let a = 1\n")
        #expect(Self.region(of: "x\n// snippet: begin\nlet a = 2\n// snippet: end\n") == "let a = 2\n")
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

    /// The lines between `// snippet: begin` and `// snippet: end`, each ending in a newline.
    static func region(of source: String) -> String? {
        guard let begin = source.range(of: "// snippet: begin\n"),
            let end = source.range(of: "// snippet: end\n", range: begin.upperBound..<source.endIndex)
        else { return nil }
        return String(source[begin.upperBound..<end.lowerBound])
    }
}
