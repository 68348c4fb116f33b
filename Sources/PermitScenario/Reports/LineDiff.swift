/// A unified diff of two texts, line by line, as `diff -u` shows one: what a reviewer reads
/// when a golden timeline changed.
public enum LineDiff {
    /// One line of the edit script.
    enum Edit: Equatable {
        case same(String), removed(String), added(String)
    }

    /// The diff from `old` to `new` with `context` unchanged lines around each change, headed
    /// `--- oldName` / `+++ newName`; empty when the texts are equal.
    public static func unified(old: String, new: String, oldName: String, newName: String, context: Int = 3) -> String {
        let edits = script(lines(of: old), lines(of: new))
        guard edits.contains(where: { if case .same = $0 { false } else { true } }) else { return "" }
        var out = ["--- \(oldName)", "+++ \(newName)"]
        for hunk in hunks(edits, context: context) { out += render(hunk, in: edits) }
        return out.joined(separator: "\n")
    }

    static func lines(of text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines
    }

    /// The edit script of a longest common subsequence. Timelines are short; past a few
    /// million cells the table would be too big, so the whole text is shown replaced.
    static func script(_ old: [String], _ new: [String]) -> [Edit] {
        let rows = old.count, columns = new.count
        guard rows * columns <= 4_000_000 else { return old.map(Edit.removed) + new.map(Edit.added) }
        // common[i][j]: the LCS length of old[i...] and new[j...].
        var common = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
        for i in stride(from: rows - 1, through: 0, by: -1) {
            for j in stride(from: columns - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var edits: [Edit] = []
        var i = 0, j = 0
        while i < rows || j < columns {
            if i < rows, j < columns, old[i] == new[j] {
                edits.append(.same(old[i]))
                i += 1
                j += 1
            } else if i < rows, j == columns || common[i + 1][j] >= common[i][j + 1] {
                // Removals before additions, as `diff -u` prints a changed line.
                edits.append(.removed(old[i]))
                i += 1
            } else {
                edits.append(.added(new[j]))
                j += 1
            }
        }
        return edits
    }

    /// Ranges of the script to show: each change with `context` lines either side, merged when
    /// they touch.
    static func hunks(_ edits: [Edit], context: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for (index, edit) in edits.enumerated() {
            if case .same = edit { continue }
            let range = max(0, index - context)..<min(edits.count, index + context + 1)
            if let last = ranges.last, last.upperBound >= range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
        return ranges
    }

    /// `@@ -a,b +c,d @@` and the hunk's lines.
    static func render(_ hunk: Range<Int>, in edits: [Edit]) -> [String] {
        var oldLine = 1, newLine = 1
        for edit in edits[..<hunk.lowerBound] {
            switch edit {
            case .same: oldLine += 1; newLine += 1
            case .removed: oldLine += 1
            case .added: newLine += 1
            }
        }
        var body: [String] = []
        var oldCount = 0, newCount = 0
        for edit in edits[hunk] {
            switch edit {
            case .same(let text): body.append(" " + text); oldCount += 1; newCount += 1
            case .removed(let text): body.append("-" + text); oldCount += 1
            case .added(let text): body.append("+" + text); newCount += 1
            }
        }
        let oldStart = oldCount == 0 ? oldLine - 1 : oldLine, newStart = newCount == 0 ? newLine - 1 : newLine
        return ["@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@"] + body
    }
}
