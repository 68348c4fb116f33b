/// "Did you mean ...?" for a misspelt name.
public enum Suggestion {
    /// The closest candidate within a small edit distance, if any.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = word.count <= 3 ? 1 : word.count <= 6 ? 2 : 3
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        if let best { return best.0 }
        // Else a shared start or a whole word inside: `renag_days` → `renag_after_days`.
        let lowered = word.lowercased()
        let byPrefix = candidates.map { candidate in
            (candidate, zip(lowered, candidate.lowercased()).prefix { $0 == $1 }.count)
        }.filter { $0.1 >= max(4, lowered.count / 2) }.max { $0.1 < $1.1 }
        if let byPrefix { return byPrefix.0 }
        return lowered.count >= 4 ? candidates.first { $0.lowercased().contains(lowered) } : nil
    }

    /// A hint naming the closest candidate, or listing them all when none is close.
    public static func hint(for word: String, in candidates: [String]) -> String {
        if let match = closest(to: word, in: candidates) { return "did you mean \"\(match)\"?" }
        return "expected one of: " + candidates.joined(separator: ", ")
    }

    /// Edit distance over characters where swapping two neighbours costs one edit, like
    /// inserting, deleting or replacing one (optimal string alignment).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
