import Foundation

/// The reference as tests read it: the index `docs/reference.md` and its pages under
/// `docs/reference/` (one for each kind of reader). The machine-checked parts of the pages are
/// tables between `<!-- keys: NAME -->` and `<!-- end keys -->` whose rows start with the key in
/// backticks, and the `<a id>` anchors other files link to.
public struct ReferenceTables {
    /// The repository the pages are read from.
    public static let repository = Repository.root
    /// The index page, from the repository's root.
    public static let indexPath = "docs/reference.md"
    /// The folder of the pages, from the repository's root.
    public static let pagesDirectory = "docs/reference"

    /// The index page.
    public let index: String
    /// Every page, by its path in the repository (`docs/reference/policy.md`), in name order.
    public let pages: [(path: String, text: String)]

    /// Reads the index and every page.
    public init() throws {
        index = try String(contentsOf: Self.repository.appendingPathComponent(Self.indexPath), encoding: .utf8)
        let directory = Self.repository.appendingPathComponent(Self.pagesDirectory)
        pages = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".md") }.sorted()
            .map { name in
                ("\(Self.pagesDirectory)/\(name)", try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            }
    }

    /// No page has the marked table asked for.
    public struct MissingSection: Error, CustomStringConvertible {
        /// The table's name.
        public let name: String
        /// What is missing, in words.
        public var description: String { "no page of docs/reference/ has a section <!-- keys: \(name) --> ... <!-- end keys -->" }
    }

    /// The page asked for does not exist.
    public struct MissingPage: Error, CustomStringConvertible {
        /// The page's name, without `.md`.
        public let name: String
        /// What is missing, in words.
        public var description: String { "docs/reference/\(name).md does not exist" }
    }

    /// The text of the page `NAME.md` under `docs/reference/`.
    public func page(_ name: String) throws -> String {
        guard let page = pages.first(where: { $0.path == "\(Self.pagesDirectory)/\(name).md" }) else { throw MissingPage(name: name) }
        return page.text
    }

    /// The cells of each row of the marked table `name` whose first cell is a key in backticks;
    /// the first cell is returned without its backticks. The table may be on any page, once.
    public func rows(_ name: String) throws -> [[String]] {
        let marker = "<!-- keys: \(name) -->"
        let holding = pages.filter { $0.text.contains(marker) }
        guard holding.count == 1, let text = holding.first?.text, let start = text.range(of: marker),
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
    public func keys(_ name: String) throws -> [String] { try rows(name).map { $0[0] } }

    /// The explicit anchors of every page (`<a id="ctx-history"></a>`), page by page, in order.
    public var anchors: [(path: String, anchor: String)] {
        pages.flatMap { page in Self.explicitAnchors(in: page.text).map { (page.path, $0) } }
    }

    /// The explicit anchors of `text` (`<a id="ctx-history"></a>`), in order.
    public static func explicitAnchors(in text: String) -> [String] {
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
    public static func codeSpans(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }
}
