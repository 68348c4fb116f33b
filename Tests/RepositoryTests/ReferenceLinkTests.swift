import Foundation
import PermitTestSupport
import Testing

/// The repository carries its own contract: every relative link of its Markdown lands on a file
/// and, with a `#fragment`, on a heading or anchor of it; every `docs/….md#anchor` that code, a
/// scenario or a message names does too; the reference's index leads each anchor of the reference
/// on to the page that holds it; and nothing cites the brief the product grew from, which a
/// clone does not have.
@Suite struct ReferenceLinkTests {
    let reference: ReferenceTables

    init() throws { reference = try ReferenceTables() }

    /// The repository's paths (files and folders) and the text of its text files, by path relative
    /// to it (build output and git excluded).
    struct Tree {
        var paths: Set<String> = []
        var files: [(path: String, text: String)] = []

        /// The text of the file at `path`, if it is a text file.
        func text(of path: String) -> String? { files.first { $0.path == path }?.text }
    }

    static let tree: Tree = {
        let root = ReferenceTables.repository
        var tree = Tree()
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else {
            return tree
        }
        let rootLength = root.standardizedFileURL.path.count + 1
        for case let url as URL in walker {
            let name = url.lastPathComponent
            let path = String(url.standardizedFileURL.path.dropFirst(rootLength))
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                if name == ".git" || name.hasPrefix(".build") || name == ".swiftpm" {
                    walker.skipDescendants()
                } else {
                    tree.paths.insert(path)
                }
                continue
            }
            tree.paths.insert(path)
            guard let data = FileManager.default.contents(atPath: url.path), data.count < 2_000_000,
                let text = String(data: data, encoding: .utf8)
            else { continue }
            tree.files.append((path, text))
        }
        tree.files.sort { $0.path < $1.path }
        return tree
    }()

    /// Text files of the repository, by path relative to it (build output and git excluded).
    static func repositoryFiles() -> [(path: String, text: String)] { tree.files }

    // MARK: Markdown

    /// The lines of Markdown `text` outside fenced code blocks, with their numbers from 1.
    static func proseLines(of text: String) -> [(number: Int, line: Substring)] {
        var prose: [(Int, Substring)] = []
        var fence: Substring?  // the opening fence while inside a block (```` ``` ````, `~~~`)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            let marks = trimmed.prefix { $0 == "`" || $0 == "~" }
            if marks.count >= 3, Set(marks).count == 1 {
                if let open = fence {
                    if marks.first == open.first, marks.count >= open.count, trimmed.dropFirst(marks.count).allSatisfy(\.isWhitespace) {
                        fence = nil
                    }
                } else {
                    fence = marks
                }
                continue
            }
            if fence == nil { prose.append((index + 1, line)) }
        }
        return prose
    }

    /// GitHub's anchor for a heading: its text as shown (links reduced to their text, code and
    /// emphasis marks gone), lowercased, every character but letters, digits, spaces, `-` and `_`
    /// dropped, and each space turned into `-`.
    static func slug(_ heading: Substring) -> String {
        var shown = ""
        var rest = heading[...]
        // `[text](target)` shows as `text`.
        while let open = rest.firstIndex(of: "[") {
            shown += rest[..<open]
            let afterOpen = rest[rest.index(after: open)...]
            guard let close = afterOpen.firstIndex(of: "]"), afterOpen[close...].hasPrefix("]("),
                let end = afterOpen[close...].firstIndex(of: ")")
            else {
                shown += "["
                rest = afterOpen
                continue
            }
            shown += afterOpen[..<close]
            rest = afterOpen[afterOpen.index(after: end)...]
        }
        shown += rest
        let kept = shown.trimmingCharacters(in: .whitespaces).lowercased()
            .filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
        return String(kept.map { $0 == " " ? "-" : $0 })
    }

    /// The anchors Markdown `text` defines: each heading's (`## ctx.history: the ledger` →
    /// `ctxhistory-the-ledger`; a repeated one gets `-1`, `-2`, … as GitHub numbers them) and
    /// each `<a id="…">` or `<a name="…">`.
    static func anchors(inMarkdown text: String) -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        for (_, line) in proseLines(of: text) {
            for attribute in ["<a id=\"", "<a name=\""] {
                var rest = line[...]
                while let open = rest.range(of: attribute), let close = rest[open.upperBound...].firstIndex(of: "\"") {
                    anchors.insert(String(rest[open.upperBound..<close]))
                    rest = rest[rest.index(after: close)...]
                }
            }
            let indented = line.prefix { $0 == " " }
            let hashes = line.dropFirst(indented.count).prefix { $0 == "#" }
            guard indented.count < 4, (1...6).contains(hashes.count) else { continue }
            let afterHashes = line.dropFirst(indented.count + hashes.count)
            guard afterHashes.isEmpty || afterHashes.first == " " else { continue }
            // A closing run of `#` is not part of the heading.
            var title = afterHashes.trimmingCharacters(in: .whitespaces)[...]
            if title.hasSuffix("#") {
                let withoutClosing = title.dropLast(title.reversed().prefix { $0 == "#" }.count)
                if withoutClosing.isEmpty || withoutClosing.hasSuffix(" ") { title = withoutClosing }
            }
            let base = slug(title)
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// The targets of the inline links and images on `line` (`[text](target)`, `![alt](target)`),
    /// without a title.
    static func linkTargets(on line: Substring) -> [Substring] {
        var targets: [Substring] = []
        var rest = line[...]
        while let open = rest.range(of: "](") {
            let target = rest[open.upperBound...].prefix { $0 != ")" && $0 != " " }
            targets.append(target)
            rest = rest[target.endIndex...]
        }
        return targets
    }

    /// `path` with `.` and `..` resolved, or nil if it leaves the repository.
    static func normalized(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                guard parts.popLast() != nil else { return nil }
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    /// What is wrong with `link`, read from a file in `directory` ("" for the repository's
    /// root), or nil when it resolves: the target must exist, and a `#fragment` of a Markdown
    /// target must be one of its anchors.
    static func problem(with link: Substring, from directory: String, in tree: Tree) -> String? {
        let hash = link.firstIndex(of: "#") ?? link.endIndex
        let file = String(link[..<hash])
        let fragment = link[hash...].dropFirst()
        guard let path = normalized(directory.isEmpty ? file : "\(directory)/\(file)") else {
            return "leads out of the repository"
        }
        guard file.isEmpty || tree.paths.contains(path) else { return "\(path) does not exist" }
        guard !fragment.isEmpty, path.hasSuffix(".md") else { return nil }
        guard let text = tree.text(of: path) else { return "\(path) is not a text file" }
        return anchors(inMarkdown: text).contains(String(fragment)) ? nil : "\(path) has no heading or anchor #\(fragment)"
    }

    /// Each broken relative link of the Markdown files among `paths`, as `file:line: link: why`.
    static func brokenMarkdownLinks(in tree: Tree, where include: (String) -> Bool) -> [String] {
        var broken: [String] = []
        for (path, text) in tree.files where path.hasSuffix(".md") && include(path) {
            let directory = path.split(separator: "/").dropLast().joined(separator: "/")
            for (number, line) in proseLines(of: text) {
                for link in linkTargets(on: line) where !isExternal(link) {
                    let target = link.hasPrefix("#") ? path.split(separator: "/").last.map { $0 + link } ?? link : link
                    if let why = problem(with: target, from: directory, in: tree) {
                        broken.append("\(path):\(number): \(link): \(why)")
                    }
                }
            }
        }
        return broken
    }

    /// A link with a scheme (`https:`, `mailto:`) leaves the repository and is not checked.
    static func isExternal(_ link: Substring) -> Bool {
        guard let colon = link.firstIndex(of: ":") else { return false }
        return link[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
    }

    // MARK: docs/ paths in text

    /// The `docs/….md` paths, each with its `#fragment` if any, that `line` names from the
    /// repository's root (`docs/reference/policy.md#ctx-history`). A path inside a longer one
    /// (`../docs/…`, `x/docs/…`) is a relative link, which the Markdown check reads.
    static func docsPaths(on line: Substring) -> [Substring] {
        func isPathCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || "-_./".contains(character))
        }
        func isAnchorCharacter(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || "-_".contains(character))
        }
        var paths: [Substring] = []
        var rest = line[...]
        while let found = rest.range(of: "docs/") {
            defer { rest = rest[found.upperBound...] }
            if found.lowerBound > line.startIndex, isPathCharacter(line[line.index(before: found.lowerBound)]) { continue }
            var end = line[found.lowerBound...].prefix(while: isPathCharacter).endIndex
            while line[found.lowerBound..<end].hasSuffix(".") { end = line.index(before: end) }
            guard line[found.lowerBound..<end].hasSuffix(".md") else { continue }
            if end < line.endIndex, line[end] == "#" {
                end = line[line.index(after: end)...].prefix(while: isAnchorCharacter).endIndex
            }
            paths.append(line[found.lowerBound..<end])
        }
        return paths
    }

    /// Each `docs/….md#anchor` that does not resolve in the text files among `paths`, as `file:line: path: why`.
    static func brokenDocsPaths(in tree: Tree, where include: (String) -> Bool) -> [String] {
        var broken: [String] = []
        for (path, text) in tree.files where include(path) {
            guard !SourceScan.starts(of: "docs/", in: text).isEmpty else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for link in docsPaths(on: line) {
                    if let why = problem(with: link.hasSuffix("#") ? link.dropLast() : link, from: "", in: tree) {
                        broken.append("\(path):\(index + 1): \(link): \(why)")
                    }
                }
            }
        }
        return broken
    }

    // MARK: The repository's links

    @Test func everyRelativeLinkOfTheMarkdownResolves() {
        let checked: (String) -> Bool = { path in
            path == "README.md" || ["docs/", "examples/", "policies/"].contains { path.hasPrefix($0) }
        }
        let markdown = Self.tree.files.filter { $0.path.hasSuffix(".md") && checked($0.path) }
        #expect(markdown.count > 15, "README, docs, examples and policies")
        let links = markdown.reduce(0) { sum, file in
            sum + Self.proseLines(of: file.text).reduce(0) { $0 + Self.linkTargets(on: $1.line).filter { !Self.isExternal($0) }.count }
        }
        #expect(links > 200, "the Markdown's relative links")
        for broken in Self.brokenMarkdownLinks(in: Self.tree, where: checked) {
            Issue.record("\(broken)")
        }
    }

    /// Code comments, messages, scenarios and Lua name `docs/….md#anchor` from the repository's
    /// root; each lands on a file and an anchor of it. This file's own examples are built to fail.
    @Test func everyDocsPathTheRepositoryNamesResolves() {
        let own = "Tests/RepositoryTests/ReferenceLinkTests.swift"
        var named = 0
        for (path, text) in Self.tree.files where path != own {
            for line in SourceScan.lines(of: text, containing: "docs/") { named += Self.docsPaths(on: line).count }
        }
        #expect(named > 50, "the repository's docs/ paths")
        for broken in Self.brokenDocsPaths(in: Self.tree, where: { $0 != own }) {
            Issue.record("\(broken)")
        }
    }

    /// The checks find what they are for: a missing file, a missing anchor, a repeated heading's
    /// number, a link out of the repository; and they read neither code blocks nor external links.
    @Test func aBrokenLinkIsReportedWithItsFileAndLine() {
        var tree = Tree()
        tree.paths = ["docs", "docs/a.md", "docs/b.md", "README.md", "Sources", "Sources/x.swift"]
        tree.files = [
            ("README.md", "See [a](docs/a.md#the-ctxhistory-table) and [b](docs/b.md#gone).\n[web](https://example.com/x.md#y)\n"),
            (
                "docs/a.md",
                "# A\n## The `ctx.history` table\n## Steps\n## Steps\n<a id=\"kept\"></a>\n"
                    + "```\n[in code](nowhere.md)\n# not a heading\n```\n"
                    + "[b](b.md#steps-1) [up](../../x.md) [self](#kept) [self2](#not-a-heading)\n"
            ),
            ("docs/b.md", "## Steps\n## Steps\n"),
            ("Sources/x.swift", "/// (docs/a.md#kept), docs/b.md#steps-1.\nlet hint = \"see docs/b.md#step and docs/c.md\"\n"),
        ]
        #expect(
            Self.brokenMarkdownLinks(in: tree) { _ in true } == [
                "README.md:1: docs/b.md#gone: docs/b.md has no heading or anchor #gone",
                "docs/a.md:10: ../../x.md: leads out of the repository",
                "docs/a.md:10: #not-a-heading: docs/a.md has no heading or anchor #not-a-heading",
            ])
        #expect(
            Self.brokenDocsPaths(in: tree) { _ in true } == [
                "README.md:1: docs/b.md#gone: docs/b.md has no heading or anchor #gone",
                "Sources/x.swift:2: docs/b.md#step: docs/b.md has no heading or anchor #step",
                "Sources/x.swift:2: docs/c.md: docs/c.md does not exist",
            ])
    }

    @Test func slugsFollowGitHub() {
        #expect(Self.slug("ctx.history: the ledger") == "ctxhistory-the-ledger")
        #expect(Self.slug("Statuses (`ctx.status`, `ctx.previous_status`)") == "statuses-ctxstatus-ctxprevious_status")
        #expect(Self.slug("4. The guardrails, and why each exists") == "4-the-guardrails-and-why-each-exists")
        #expect(Self.slug("iOS 9 — denied") == "ios-9--denied")
        #expect(Self.slug("See [the guide](guide.md#x) first") == "see-the-guide-first")
        #expect(Self.anchors(inMarkdown: "# A\n# A\n# A #\n### B ###\n") == ["a", "a-1", "a-2", "b"])
    }

    // MARK: The reference's pages

    /// Each anchor is defined once across the pages, so `page#anchor` and the index's entry for
    /// it name one section; the pages' own links land on them (checked with the other Markdown).
    @Test func anchorsAreUniqueAcrossThePages() {
        let anchors = reference.anchors
        #expect(anchors.count > 70)
        var pageOf: [String: String] = [:]
        for (path, anchor) in anchors {
            if let first = pageOf[anchor] {
                Issue.record("the anchor \(anchor) is defined on \(first) and again on \(path)")
            }
            pageOf[anchor] = path
        }
    }

    /// `docs/reference.md#ANCHOR` keeps working: the index has an entry for every anchor of the
    /// pages, and each entry links to the page that defines it. The index's table names every page.
    @Test func theIndexLeadsEveryAnchorToItsPage() {
        let pageName = { (path: String) in path.dropFirst(ReferenceTables.pagesDirectory.count + 1) }
        let pageOf = Dictionary(reference.anchors.map { ($0.anchor, $0.path) }, uniquingKeysWith: { first, _ in first })
        var forwarded: Set<String> = []
        for anchor in ReferenceTables.explicitAnchors(in: reference.index) {
            forwarded.insert(anchor)
            let entry = "<a id=\"\(anchor)\"></a>["
            guard let start = reference.index.range(of: entry), let link = Self.linkTargets(on: reference.index[start.upperBound...]).first
            else {
                Issue.record("docs/reference.md: the entry for #\(anchor) is not `<a id=\"\(anchor)\"></a>[\(anchor)](reference/PAGE#…)`")
                continue
            }
            guard let page = pageOf[anchor] else {
                Issue.record("docs/reference.md has an entry for #\(anchor), which no page defines")
                continue
            }
            let expected = "reference/\(pageName(page))#\(anchor)"
            #expect(link == expected[...], "docs/reference.md's entry for #\(anchor) links \(link); the anchor is on \(page)")
        }
        for (anchor, page) in pageOf.sorted(by: { $0.key < $1.key }) where !forwarded.contains(anchor) {
            let entry = "<a id=\"\(anchor)\"></a>[\(anchor)](reference/\(pageName(page))#\(anchor))"
            Issue.record("\(page) defines #\(anchor), and docs/reference.md has no entry for it; add `\(entry)` under its page")
        }
        for (path, _) in reference.pages {
            let name = pageName(path)
            #expect(reference.index.contains("| [\(name)](reference/\(name)) |"), "docs/reference.md's table of pages lacks \(path)")
        }
    }

    @Test func nothingCitesTheOriginalBrief() {
        // Spelled in two parts so that this file does not match itself.
        let shared = "sha" + "red/"
        let forbidden = ["SPEC" + " §", "../" + shared, shared + "SPEC"]
        for (path, text) in Self.repositoryFiles() {
            for phrase in forbidden {
                #expect(SourceScan.starts(of: phrase, in: text).isEmpty, "\(path) cites \"\(phrase)\"; link to the reference")
            }
        }
    }

    /// The repository speaks of the product: the project's own working sessions and issue
    /// numbers live in git and the tracker, not in code or docs. An outside tracker's issue is
    /// named with its repository (`owner/name issue 1423`) and stays.
    @Test func nothingNamesTheProjectsOwnSessionsOrIssues() {
        let session = #/(\S+ )?\b[Ss]essions? \d+/#
        let issue = #/(\S+ )?\[?\b[Ii]ssues? #?\d+/#
        for (path, text) in Self.repositoryFiles() where !path.hasPrefix("Tests/RepositoryTests/ReferenceLinkTests") {
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
