/// Text made safe for HTML and XML: the one escaping the HTML reports, JUnit's XML and the
/// coverage export go through.
///
/// Policies, scenario files and models put text into those files (a policy's name, a reason, a
/// failure message). `escaped` writes the five characters markup gives a meaning (`&`, `<`,
/// `>`, `"`, `'`) as references that read the same in an attribute and in content, in HTML and
/// in XML (`&#39;`, not HTML's missing `&apos;`), and drops the characters XML 1.0 cannot hold
/// at all (C0 controls other than tab, newline and carriage return; U+FFFE and U+FFFF), which
/// HTML also forbids: a report with one of them would not open in a JUnit reader.
public enum MarkupText {
    /// `text` with markup's characters written as references and what XML 1.0 cannot hold
    /// dropped.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
