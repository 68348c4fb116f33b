import Foundation
import Testing
@testable import PermitCore

@Suite struct DocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
}
