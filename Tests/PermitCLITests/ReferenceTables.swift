import Foundation

/// The machine-checked parts of `docs/reference.md`: tables between `<!-- keys: NAME -->` and
/// `<!-- end keys -->` whose rows start with the key in backticks, and the `<a id>` anchors
/// other files link to.
struct ReferenceTables {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let text: String

    init() throws {
        text = try String(contentsOf: Self.repository.appendingPathComponent("docs/reference.md"), encoding: .utf8)
    }

    struct MissingSection: Error, CustomStringConvertible {
        let name: String
        var description: String { "docs/reference.md has no section <!-- keys: \(name) --> ... <!-- end keys -->" }
    }

    /// The cells of each row of the marked table `name` whose first cell is a key in backticks;
    /// the first cell is returned without its backticks.
    func rows(_ name: String) throws -> [[String]] {
        guard let start = text.range(of: "<!-- keys: \(name) -->"),
            let end = text.range(of: "<!-- end keys -->", range: start.upperBound..<text.endIndex)
        else { throw MissingSection(name: name) }
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line -> [String]? in
            guard line.hasPrefix("| `") else { return nil }
            var cells = line.dropFirst().split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.last == "" { cells.removeLast() }
            guard let key = cells.first, key.hasPrefix("`"), key.hasSuffix("`"), key.count > 2 else { return nil }
            cells[0] = String(key.dropFirst().dropLast())
            return cells
        }
    }

    /// The keys of the marked table `name`, in the table's order.
    func keys(_ name: String) throws -> [String] { try rows(name).map { $0[0] } }

    /// The explicit anchors (`<a id="ctx-history"></a>`), in order.
    var anchors: [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<a id=\"") {
            guard let close = rest.range(of: "\"", range: open.upperBound..<rest.endIndex) else { break }
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// The names in backticks in `cell` (`soft_prompt`, `settings_prompt` → both).
    static func codeSpans(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }
}
