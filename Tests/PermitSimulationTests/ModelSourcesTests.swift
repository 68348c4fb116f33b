import Foundation
import PermitInput
import Testing

/// docs/reference/model.md cites a source (or says "an assumption") for every figure of every shipped
/// model: its table lists exactly the keys the files in examples/models/ set.
@Suite struct ModelSourcesTests {
    /// Tables of shares and count distributions are one figure each; other tables are sections.
    static let wholeFigures: Set<String> = ["os_versions", "locales", "features", "travel.zones"]
    static let distributionKeys: Set<String> = ["poisson", "uniform", "choice"]
    static let notFigures: Set<String> = ["name", "start"]

    static func figures(of value: YAMLValue, path: String) throws -> [String] {
        guard !isScalar(value), !wholeFigures.contains(path) else { return [path] }
        let entries = try value.table()
        if entries.contains(where: { distributionKeys.contains($0.key) }) { return [path] }
        return try entries.flatMap { entry in
            try figures(of: entry.value, path: path.isEmpty ? entry.key : path + "." + entry.key)
        }
    }

    static func isScalar(_ value: YAMLValue) -> Bool { (try? value.table()) == nil }

    /// The backticked first cells between `<!-- keys: model.sources -->` and `<!-- end keys -->`.
    static func documentedKeys() throws -> Set<String> {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/reference/model.md"), encoding: .utf8)
        let start = try #require(text.range(of: "<!-- keys: model.sources -->"))
        let end = try #require(text.range(of: "<!-- end keys -->", range: start.upperBound..<text.endIndex))
        let rows = text[start.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("| `") }
        return Set(rows.compactMap { row in row.split(separator: "`").dropFirst().first.map(String.init) })
    }

    @Test func everyFigureOfEveryShippedModelHasASourceRow() throws {
        let directory = repositoryRoot.appendingPathComponent("examples/models")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }
        #expect(!files.isEmpty)
        var keys: Set<String> = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let root = try YAMLValue.parse(text, file: file)
            keys.formUnion(try Self.figures(of: root, path: "").filter { !Self.notFigures.contains($0) })
        }
        #expect(keys.contains("soft_prompt.accept") && keys.contains("os_versions"), "the flattening reads the files")
        #expect(try Self.documentedKeys() == keys, "docs/reference/model.md <!-- keys: model.sources -->")
    }
}
