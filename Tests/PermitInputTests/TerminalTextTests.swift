import Foundation
import Testing

@testable import PermitInput

/// The one escaping every text `permit` prints goes through (`Console.write`).
@Suite struct TerminalTextTests {
    @Test func controlsAndBidirectionalMarksAreWrittenAsEscapes() {
        let cases: [(String, String)] = [
            ("\u{1B}[2J", #"\u001B[2J"#), ("a\rb", #"a\u000Db"#), ("\u{0}", #"\u0000"#), ("\u{7F}", #"\u007F"#),
            ("\u{85}\u{9B}", #"\u0085\u009B"#), ("\u{202E}txt.exe", #"\u202Etxt.exe"#), ("\u{2066}\u{2069}", #"\u2066\u2069"#),
            ("\u{200E}\u{200F}\u{061C}", #"\u200E\u200F\u061C"#), ("\u{202A}\u{202D}", #"\u202A\u202D"#),
        ]
        for (raw, shown) in cases { #expect(TerminalText.escaped(raw) == shown, "\(shown)") }
        // Lines and tabs are the output's own; text, accents and emoji stay as they are.
        let plain = "line one\n\tline two: é 不 👋 → ✓ \u{2028}"
        #expect(TerminalText.escaped(plain) == plain)
        #expect(TerminalText.inline("a\nb\tc") == #"a\u000Ab\u0009c"#)
    }

    /// `\uXXXX` is JSON's own escape: escaped JSON parses to the same strings.
    @Test func escapedJSONIsTheSameJSON() throws {
        let value = ["reason": "x\u{1B}[31m\u{7F}\u{9B}\u{202E}y"]
        let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        let escaped = TerminalText.escaped(json)
        #expect(!escaped.unicodeScalars.contains { TerminalText.isSteering($0.value) })
        #expect(try JSONDecoder().decode([String: String].self, from: Data(escaped.utf8)) == value)
    }

    /// The report's colours come through; the same bytes from input do not.
    @Test func onlyPaintedColourReachesTheTerminal() {
        let painted = TerminalText.painted("PASS", 32) + " \u{1B}[32mFAKE\u{1B}[0m"
        #expect(TerminalText.escaped(painted) == "\u{1B}[32mPASS\u{1B}[0m \\u001B[32mFAKE\\u001B[0m")
        #expect(TerminalText.escaped(TerminalText.painted("PASS", 32), colour: false) == "PASS")
    }
}
