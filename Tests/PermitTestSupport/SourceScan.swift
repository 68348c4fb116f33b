import Foundation

/// Finding words in the repository's own source files, for the tests that read them (layering,
/// wrappers, links).
///
/// Why: those tests ran a `Regex` over every whole file, and in the debug build the suite runs
/// in, Swift's regex engine tries a pattern at every position of the text: over the ~200
/// source files that was most of their cost. A byte search finds the few places a pattern can
/// start (an `import` line, a `struct` keyword), and the regex then runs only there.
public enum SourceScan {
    /// Where `word` starts in `text`, in order; occurrences may overlap.
    public static func starts(of word: String, in text: String) -> [String.Index] {
        scan(text, for: word).map { text.utf8.index(text.utf8.startIndex, offsetBy: $0.match) }
    }

    /// The lines of `text` (without their line break) that hold `word`, each once, in order.
    public static func lines(of text: String, containing word: String) -> [Substring] {
        var lines: [Substring] = []
        var lastLineStart = -1
        for found in scan(text, for: word) where found.lineStart != lastLineStart {
            lastLineStart = found.lineStart
            let start = text.utf8.index(text.utf8.startIndex, offsetBy: found.lineStart)
            let end = text.utf8.index(text.utf8.startIndex, offsetBy: found.lineEnd)
            lines.append(text[start..<end])
        }
        return lines
    }

    /// Each occurrence's UTF-8 offset, with the offsets of its line's start and end. The search
    /// jumps between candidates with `memchr` and compares them with `memcmp`: a byte loop in
    /// the debug build was itself a measurable share of the suite.
    private static func scan(_ text: String, for word: String) -> [(match: Int, lineStart: Int, lineEnd: Int)] {
        let pattern = Array(word.utf8)
        let newline = UInt8(ascii: "\n")
        var contiguous = text
        contiguous.makeContiguousUTF8()
        return contiguous.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress, let first = pattern.first, bytes.count >= pattern.count else { return [] }
            var found: [(match: Int, lineStart: Int, lineEnd: Int)] = []
            let last = bytes.count - pattern.count
            var index = 0
            while index <= last, let hit = memchr(base + index, Int32(first), last - index + 1) {
                let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                index = at + 1
                guard memcmp(hit, pattern, pattern.count) == 0 else { continue }
                var lineStart = at
                while lineStart > 0, base[lineStart - 1] != newline { lineStart -= 1 }
                let end = memchr(base + at, Int32(newline), bytes.count - at)
                let lineEnd = end.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? bytes.count
                found.append((at, lineStart, lineEnd))
            }
            return found
        } ?? []
    }
}
