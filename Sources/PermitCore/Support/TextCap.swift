/// Cuts a text a policy produced to a size every outcome, record and log can carry.
///
/// A policy controls its error text (`error(("E"):rep(1e6))`): uncut, a megabyte would be
/// copied into every outcome, decision record, report and log line of that event. The bound is
/// the one a decision's `reason` has (2,000 bytes); the cut text ends in a marker that says how
/// much was dropped, so no reader takes it for the whole message.
public enum TextCap {
    /// The most bytes (UTF-8) a policy error's message keeps; a decision's texts (its `reason`,
    /// a prompt's fields) are refused past the same bound (PermitLua's DecisionReader).
    public static let errorMessageBytes = 2_000
    /// The most bytes a policy error's traceback keeps.
    public static let tracebackBytes = 8_000

    /// `text` whole when it fits in `limit` bytes; else its longest start that fits (never
    /// splitting a character) followed by ` … [N bytes cut]`, N the bytes left out.
    public static func capped(_ text: String, bytes limit: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        // Back to the start of a character (UTF-8 continuation bytes are 0b10xxxxxx).
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        let kept = String(text.utf8[..<end])!
        return kept + " … [\(utf8.count - kept.utf8.count) bytes cut]"
    }
}
