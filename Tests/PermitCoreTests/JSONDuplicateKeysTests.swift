import Foundation
import Testing

@testable import PermitCore

/// The duplicate-key scan that a bundle's `params.json` and every ledger pass before they are
/// decoded: where it reports a key, and that its work stays linear in the bytes it is given.
@Suite struct JSONDuplicateKeysTests {
    /// The deepest nesting Foundation's JSON parser reads (the second test checks it refuses one more).
    private static let parserDepth = 512

    private func scan(_ text: String) -> JSONDuplicateKeys.Duplicate? {
        JSONDuplicateKeys.first(in: Data(text.utf8))
    }

    @Test func aDuplicateIsReportedWithItsPathAndBothLines() throws {
        let found = try #require(scan("{\"copy\": {\n \"en\": 1,\n \"en\": 2}}"))
        #expect(found == JSONDuplicateKeys.Duplicate(path: "copy.en", line: 3, firstLine: 2))
        let inArray = try #require(scan("{\"a\": [1, {\"b\": 1, \"b\": 2}]}"))
        #expect(inArray.path == "a[].b")
        let topArray = try #require(scan("[[{\"x\": 1, \"x\": 2}]]"))
        #expect(topArray.path == "[][].x")
        #expect(scan("{\"a\": {\"b\": 1}, \"b\": {\"a\": 1}}") == nil)
    }

    @Test func aKeySpelledWithEscapesIsTheSameKey() throws {
        let found = try #require(scan("{\"a\": 1, \"\\u0061\": 2}"))
        #expect(found.path == "a")
    }

    /// The last key of an object of 20,000 is found, and a duplicate 512 levels down is too:
    /// the deepest nesting Foundation's parser reads.
    @Test func wideAndDeepTextsAreScanned() throws {
        let keys = (0..<20_000).map { "\"k\($0)\": 0" }.joined(separator: ", ")
        let wide = try #require(scan("{\(keys), \"k7\": 1}"))
        #expect(wide.path == "k7")
        let depth = Self.parserDepth
        let deep = String(repeating: "[", count: depth - 1) + "{\"x\": 1, \"x\": 2}" + String(repeating: "]", count: depth - 1)
        let found = try #require(scan(deep))
        #expect(found.path == String(repeating: "[]", count: depth - 1) + ".x")
    }

    /// Past the parser's depth the scan stops (the decoder refuses the text, with the same
    /// bytes), so 60,000 open brackets cost a linear scan, not a path copied at each of them.
    @Test func nestingPastWhatTheDecoderReadsIsLeftToTheDecoder() throws {
        let depth = Self.parserDepth + 1
        let tooDeep = String(repeating: "[", count: depth - 1) + "{\"x\": 1, \"x\": 2}" + String(repeating: "]", count: depth - 1)
        #expect(scan(tooDeep) == nil)
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(tooDeep.utf8)) }
        #expect(scan(String(repeating: "[", count: 60_000)) == nil)
    }
}
