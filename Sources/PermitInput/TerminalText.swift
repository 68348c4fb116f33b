/// Text made safe for a terminal: the one escaping every text `permit` prints goes through.
///
/// Policies, scenario files and command lines put text into the output (a policy's name, a
/// reason, what `print` wrote, a scenario's name, a path). Raw, an escape sequence in one can
/// recolour, clear or move the cursor, a carriage return can overwrite the line it is on, and a
/// bidirectional override (U+202E) can show text in an order other than the bytes': enough to
/// forge a `PASS`. `escaped` writes each such character as `\uXXXX`: C0 controls other than
/// newline and tab, DEL, C1 controls, and the bidirectional marks, embeddings, overrides and
/// isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). `\uXXXX` is also JSON's
/// own escape, so JSON output escaped this way stays valid JSON holding the same strings.
///
/// The report's own colours cannot be written as raw escape sequences (they would be escaped
/// like a policy's); `painted` marks them with a token made at launch that no input can know,
/// and `escaped` turns the marks into colour.
public enum TerminalText {
    /// Starts a colour mark: private-use characters around a random number drawn at launch.
    private static let mark = "\u{E000}" + String(UInt64.random(in: .min ... .max), radix: 36) + "\u{E001}"

    /// `text` in the SGR colour `code` (31 red, 32 green, 33 yellow) once `escaped` writes it.
    public static func painted(_ text: String, _ code: Int) -> String {
        "\(mark)\(code)m\(text)\(mark)0m"
    }

    /// `text` with every character that could steer a terminal written as `\uXXXX`, and the
    /// colour marks of `painted` as colour (or as nothing, with `colour` false).
    public static func escaped(_ text: String, colour: Bool = true) -> String {
        escaped(text, colour: colour, keepingLines: true)
    }

    /// `text` for one line of output: escaped like `escaped`, and newlines and tabs too, so a
    /// reason, a name or a path cannot start a line of its own (a forged `PASS`).
    public static func inline(_ text: String) -> String {
        escaped(text, colour: false, keepingLines: false)
    }

    /// Whether `text` holds a character `inline` escapes (a control or bidirectional mark).
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { isSteering($0.value, keepingLines: false) }
    }

    private static func escaped(_ text: String, colour: Bool, keepingLines: Bool) -> String {
        guard !keepingLines || needsWork(text) else { return text }
        var out = String()
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isSteering(scalar.value, keepingLines: keepingLines) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        guard out.contains(mark) else { return out }
        return out.replacingAll(mark, with: colour ? "\u{1B}[" : nil)
    }

    /// Whether a character is escaped (newline and tab only with `keepingLines` false).
    public static func isSteering(_ value: UInt32, keepingLines: Bool = true) -> Bool {
        switch value {
        case 0x0A, 0x09: !keepingLines
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// A quick look at the bytes: most text holds none of the lead bytes of what is escaped.
    private static func needsWork(_ text: String) -> Bool {
        for byte in text.utf8 {
            switch byte {
            case 0x0A, 0x09: continue
            case 0x00...0x1F, 0x7F, 0xC2, 0xD8, 0xE2, 0xEE: return true
            default: continue
            }
        }
        return false
    }
}

extension String {
    /// Each `mark` replaced: by `prefix` (keeping the `NNm` after it) or, with `nil`, removed
    /// with its `NNm`.
    fileprivate func replacingAll(_ mark: String, with prefix: String?) -> String {
        var out = ""
        var rest = self[...]
        while let range = rest.range(of: mark) {
            out += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            if let prefix {
                out += prefix
            } else if let end = rest.firstIndex(of: "m") {
                rest = rest[rest.index(after: end)...]
            }
        }
        return out + rest
    }
}
