import PermitTestSupport
import Testing

/// The byte search the source-reading tests (layering, wrapper forwarding, links, function
/// length) stand on: what it misses, they would pass without looking.
@Suite struct SourceScanTests {
    @Test func startsFindsEveryOccurrenceAfterMultiByteText() {
        let text = "é aaa\nzh 不错 aa"
        let starts = SourceScan.starts(of: "aa", in: text)
        #expect(starts.map { String(text[$0...].prefix(2)) } == ["aa", "aa", "aa"])
        #expect(starts.map { text.distance(from: text.startIndex, to: $0) } == [2, 3, 12])
        #expect(SourceScan.starts(of: "b", in: text).isEmpty)
        #expect(SourceScan.starts(of: "aaaa", in: "aaa").isEmpty)
        #expect(SourceScan.starts(of: "x", in: "").isEmpty)
    }

    @Test func linesAreWholeAndEachOnce() {
        let text = "import A\n  let x = 1 // import\n\n@testable import B"
        #expect(SourceScan.lines(of: text, containing: "import") == ["import A", "  let x = 1 // import", "@testable import B"])
        #expect(SourceScan.lines(of: "import a import b", containing: "import") == ["import a import b"])
        #expect(SourceScan.lines(of: text, containing: "struct").isEmpty)
    }
}
