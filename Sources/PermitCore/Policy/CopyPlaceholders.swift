/// The named placeholders of a copy text: `{app}` stands for a value the policy passes to
/// `permit.copy("key", { app = ctx.app.name })`, `{{` and `}}` write a literal brace.
///
/// Why names and not positions (`%1$@`): a translation may put the name anywhere, and the
/// policy says which value is which by name. Why every brace must be one of the three: a
/// brace the reader cannot place (`{app` or a lone `}`) is a mistake that would otherwise
/// reach a user as text; it is refused where the copy is read, with its file and line. The
/// sandbox fills texts by the same grammar (`permit.copy`, PermitLib.c).
public enum CopyPlaceholders {
    /// Why `text`'s braces are not placeholders and escapes: what is wrong and what to write.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong and what to do.
        public var message: String

        /// The problem, in words.
        public var description: String { message }
    }

    /// The names of `text`'s placeholders, each once, in the order they first appear
    /// (`"Hi {name}, {app} says {{hi}}"` has `name` and `app`), or the first brace out of place.
    public static func names(in text: String) throws(Problem) -> [String] {
        let bytes = Array(text.utf8)
        var names: [String] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "}") {
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "}") else {
                    throw Problem(message: "a lone } in the text; write }} for a brace, or {name} for a placeholder")
                }
                index += 2
            } else if byte == UInt8(ascii: "{") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{") {
                    index += 2
                    continue
                }
                let start = index + 1
                var end = start
                while end < bytes.count, isNameByte(bytes[end], first: end == start) { end += 1 }
                guard end > start, end < bytes.count, bytes[end] == UInt8(ascii: "}") else {
                    throw Problem(
                        message:
                            "a { that starts no placeholder; a placeholder is { a name of a-z, 0-9 and _ }, like {app}; "
                            + "write {{ for a brace")
                }
                let name = String(decoding: bytes[start..<end], as: UTF8.self)
                if !names.contains(name) { names.append(name) }
                index = end + 1
            } else {
                index += 1
            }
        }
        return names
    }

    /// Whether `byte` may stand in a placeholder's name: `[a-z_]` first, `[a-z0-9_]` after.
    static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_")
            || (!first && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte))
    }
}
