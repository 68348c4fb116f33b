import Foundation
import PermitTestSupport
import Testing

/// No function or initializer under Sources/ or Benchmarks/Sources/ is over 70 lines
/// (declaration to closing brace), so each fits on a screen and reads as one step: Swift
/// functions, and C functions (the shim and the benchmark's reference, top-level bodies found by
/// matching braces). Tests are exempt; so is code a tool wrote (none today).
///
/// 70, not 60: swift-format (`make format`) lays a long call out over several lines where the
/// code held it on one, and a function that reads as one step should not be split for that.
@Suite struct FunctionLengthTests {
    static let limit = 70
    static let repository = Repository.root

    /// The file's lines with comments and string literals left out, so only code braces count
    /// (in C also character literals like '{'). Works on bytes: every delimiter it looks for is
    /// ASCII.
    static func codeLines(_ text: String, isC: Bool = false) -> [String] {
        let bytes = Array(text.utf8)
        var lines: [String] = []
        var line: [UInt8] = []
        var blockComments = 0
        var stringQuotes = 0  // 0: code; 1: a "..." string; 3: a """...""" string
        var index = 0
        // `index` stays out of any closure: a captured variable is boxed, and in the debug build
        // every read of a box pays two exclusivity checks.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                lines.append(String(decoding: line, as: UTF8.self))
                line.removeAll(keepingCapacity: true)
                if stringQuotes == 1 { stringQuotes = 0 }
                index += 1
            } else if blockComments > 0 {
                if Self.bytes(bytes, at: index, are: "*/") {
                    blockComments -= 1; index += 2
                } else if Self.bytes(bytes, at: index, are: "/*") {
                    blockComments += 1; index += 2
                } else {
                    index += 1
                }
            } else if stringQuotes > 0 {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                } else if stringQuotes == 3 ? Self.bytes(bytes, at: index, are: "\"\"\"") : byte == UInt8(ascii: "\"") {
                    index += stringQuotes
                    stringQuotes = 0
                } else {
                    index += 1
                }
            } else if Self.bytes(bytes, at: index, are: "//") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if Self.bytes(bytes, at: index, are: "/*") {
                blockComments = 1
                index += 2
            } else if Self.bytes(bytes, at: index, are: "\"\"\"") {
                stringQuotes = 3
                index += 3
            } else if byte == UInt8(ascii: "\"") {
                stringQuotes = 1
                index += 1
            } else if isC, byte == UInt8(ascii: "'") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "'"), bytes[index] != UInt8(ascii: "\n") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            } else {
                line.append(byte)
                index += 1
            }
        }
        lines.append(String(decoding: line, as: UTF8.self))
        return lines
    }

    /// Whether `line` holds "func ", "init" or "subscript": the only lines `declaration()` can
    /// match, found without running it (or Foundation's `contains`, slow in a debug build).
    static func mayDeclareAFunction(_ line: String) -> Bool {
        ["func ", "init", "subscript"].contains { !SourceScan.starts(of: $0, in: line).isEmpty }
    }

    /// Whether `bytes` holds `pattern` (ASCII) at `index`.
    static func bytes(_ bytes: [UInt8], at index: Int, are pattern: StaticString) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        var offset = 0
        while offset < count {
            if bytes[index + offset] != pattern.utf8Start[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Made once per test and passed to `longFunctions`: compiling it per file cost more than
    /// the scan.
    static func declaration() -> Regex<Substring> {
        #/^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*(?:(?:public|private|package|internal|fileprivate|open|static|class|mutating|nonmutating|override|final|nonisolated|convenience|required|isolated)(?:\([^)]*\))?\s+)*(?:func\s|init[?!]?\s*[(<]|subscript\s*[(<])/#
    }

    /// Every function at least `limit` + 1 lines long: (file, first line, length).
    static func longFunctions(in file: String, pattern: Regex<Substring> = declaration()) throws -> [(line: Int, length: Int)] {
        let lines = codeLines(try String(contentsOfFile: file, encoding: .utf8))
        var found: [(line: Int, length: Int)] = []
        for (start, text) in lines.enumerated()
        where Self.mayDeclareAFunction(text) && text.firstMatch(of: pattern) != nil {
            var depth = 0, parens = 0, opened = false
            search: for number in start..<lines.count {
                for character in lines[number] {
                    switch character {
                    case "(": parens += 1
                    case ")": parens -= 1
                    case "{": depth += 1; opened = true
                    case "}": depth -= 1
                    default: break
                    }
                    if opened && depth == 0 {
                        let length = number - start + 1
                        if length > limit { found.append((start + 1, length)) }
                        break search
                    }
                }
                // A requirement with no body (in a protocol) ends at its line.
                if !opened, parens == 0, number + 1 < lines.count {
                    let next = lines[number + 1].trimmingCharacters(in: .whitespaces)
                    let continues =
                        next.hasPrefix("throws") || next.hasPrefix("->") || next.hasPrefix("where")
                        || next.hasPrefix("async") || next.hasPrefix("{") || next.hasPrefix("rethrows")
                    let open = lines[number].trimmingCharacters(in: .whitespaces)
                    if !continues, !open.hasSuffix(","), !open.hasSuffix("("), !open.hasSuffix("->") { break search }
                }
            }
        }
        return found
    }

    /// Every C function definition at least `limit` + 1 lines long: (first line, length). A
    /// definition is a top-level `{` whose declaration (since the last top-level `;`, `}` or
    /// preprocessor line) ends with `)` and has no `=` (which an initialiser would); it runs from
    /// the declaration's first line to the matching `}`.
    static func longCFunctions(in file: String) throws -> [(line: Int, length: Int)] {
        let lines = codeLines(try String(contentsOfFile: file, encoding: .utf8), isC: true)
        var found: [(line: Int, length: Int)] = []
        var depth = 0
        var declaration = "", declarationStart: Int?, bodyStart: Int?
        var continuesDirective = false
        for (number, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if depth == 0, continuesDirective || trimmed.hasPrefix("#") {
                continuesDirective = trimmed.hasSuffix("\\")
                declaration = ""
                declarationStart = nil
                continue
            }
            for character in line {
                switch character {
                case "{":
                    if depth == 0 {
                        let head = declaration.trimmingCharacters(in: .whitespacesAndNewlines)
                        bodyStart = head.hasSuffix(")") && !head.contains("=") ? (declarationStart ?? number) : nil
                    }
                    depth += 1
                case "}":
                    depth -= 1
                    if depth == 0 {
                        if let start = bodyStart, number - start + 1 > limit { found.append((start + 1, number - start + 1)) }
                        bodyStart = nil
                        declaration = ""
                        declarationStart = nil
                    }
                case ";" where depth == 0:
                    declaration = ""
                    declarationStart = nil
                default:
                    if depth == 0 {
                        if declarationStart == nil, !character.isWhitespace { declarationStart = number }
                        declaration.append(character)
                    }
                }
            }
            if depth == 0 { declaration.append(" ") }
        }
        return found
    }

    @Test func noShippingCFunctionIsOverSeventyLines() throws {
        var checked = 0
        for directory in ["Sources/CLuaShim", "Benchmarks/Sources/PermitBenchReference"] {
            let root = Self.repository.appendingPathComponent(directory)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".c") || file.hasSuffix(".h") {
                checked += 1
                for long in try Self.longCFunctions(in: root.appendingPathComponent(file).path) {
                    Issue.record(
                        "\(directory)/\(file):\(long.line): a C function of \(long.length) lines; split it (at most \(Self.limit))")
                }
            }
        }
        #expect(checked > 15)
    }

    /// The C measure: a definition one line over is found (from its declaration's first line,
    /// a signature split over two lines), one at the limit is not, and braces in strings,
    /// character literals, comments, initialisers and macros do not count.
    @Test func theCMeasureCountsDeclarationToClosingBrace() throws {
        let body = (0..<(Self.limit - 3)).map { _ in "    x += '{' + \"}\"[0]; /* { */" }.joined(separator: "\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("length-\(UUID().uuidString).c")
        defer { try? FileManager.default.removeItem(at: file) }
        let text = """
            #define BLOCK(x) do { \\
                x; } while (0)
            static const int table[] = {
            \(body)
            };
            static int fits(
                int x) {
            \(body)
            }
            typedef struct pair { int a, b; } pair;
            static int too_long(int x)
            {
            \(body)
                return x;
            }
            """
        try text.write(to: file, atomically: true, encoding: .utf8)
        let long = try Self.longCFunctions(in: file.path)
        #expect(long.count == 1, "\(long)")
        #expect(long.first?.line == 2 * Self.limit + 3 && long.first?.length == Self.limit + 1, "\(long)")
    }

    @Test func noShippingFunctionIsOverSeventyLines() throws {
        var checked = 0
        let pattern = Self.declaration()
        for directory in ["Sources", "Tools", "Benchmarks/Sources"] {
            let sources = Self.repository.appendingPathComponent(directory)
            let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".swift") {
                checked += 1
                for long in try Self.longFunctions(in: sources.appendingPathComponent(file).path, pattern: pattern) {
                    Issue.record("\(directory)/\(file):\(long.line): a function of \(long.length) lines; split it (at most \(Self.limit))")
                }
            }
        }
        #expect(checked > 50)
    }

    /// The measure itself: a long function is found, one at the limit is not, and braces in
    /// strings and comments do not count.
    @Test func theMeasureCountsDeclarationToClosingBrace() throws {
        let body = (0..<(Self.limit - 2)).map { "    let x\($0) = \"}\" // {" }.joined(separator: "\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("length-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: file) }
        let text = "protocol P {\n    func required()\n}\n\nfunc fits() {\n\(body)\n}\n\nfunc tooLong() {\n\(body)\n    let y = 1\n}\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let long = try Self.longFunctions(in: file.path)
        #expect(long.count == 1)
        #expect(long.first?.line == Self.limit + 6 && long.first?.length == Self.limit + 1)
    }
}
