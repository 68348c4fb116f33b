import Foundation

/// Finding words in the repository's own source files, for the tests that read them (layering,
/// wrappers, links).
///
/// A plain substring search finds the few places a pattern can start (an `import` line, a
/// `struct` keyword), and a test's regex then runs only there: a `Regex` over every whole file
/// tries its pattern at every position, which in the debug build the suite runs in was most of
/// those tests' cost.
public enum SourceScan {
    /// Where `word` starts in `text`, in order; occurrences may overlap.
    public static func starts(of word: String, in text: String) -> [String.Index] {
        var found: [String.Index] = []
        var from = text.startIndex
        while from < text.endIndex, let hit = text.range(of: word, range: from..<text.endIndex) {
            found.append(hit.lowerBound)
            from = text.index(after: hit.lowerBound)
        }
        return found
    }

    /// The lines of `text` (without their line break) that hold `word`, each once, in order.
    public static func lines(of text: String, containing word: String) -> [Substring] {
        guard text.contains(word) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.contains(word) }
    }
}
