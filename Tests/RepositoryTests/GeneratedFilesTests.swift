import Foundation
import GeneratedNames
import PermitTestSupport
import Testing

/// The checked-in generated files are what `ContextSchema` makes today (GeneratedNames, written
/// by `make generate`): a schema change that was not generated fails here, naming the file and
/// the lines that differ.
@Suite struct GeneratedFilesTests {
    @Test(arguments: GeneratedNames.paths)
    func theCheckedInFileIsWhatTheSchemaMakes(path: String) throws {
        let expected = try #require(GeneratedNames.contents(of: path))
        let current = try? String(contentsOf: Repository.root.appendingPathComponent(path), encoding: .utf8)
        guard current != expected else { return }
        let added = Set(Self.lines(expected)).subtracting(Self.lines(current ?? ""))
        let removed = Set(Self.lines(current ?? "")).subtracting(Self.lines(expected))
        Issue.record(
            """
            \(path) is not what ContextSchema makes; run `make generate` (lines to add: \(added.sorted()), \
            to remove: \(removed.sorted()))
            """)
    }

    @Test func everyGeneratedFileHasContents() {
        #expect(GeneratedNames.paths.count == 4)
        for path in GeneratedNames.paths { #expect(GeneratedNames.contents(of: path)?.isEmpty == false, "\(path)") }
        #expect(GeneratedNames.contents(of: "Sources/none.h") == nil)
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
