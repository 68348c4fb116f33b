import Foundation

/// Finds a key given twice in one JSON object.
///
/// `JSONDecoder` keeps one of two equal keys and says nothing, so a bundle's `params.json`
/// with `"gap": 1` and then `"gap": 30` would install with whichever value the decoder
/// happened to keep, while a reviewer reading the file may see the other; a ledger with two
/// `launches` would be read as one of them. Refusing the bytes is the only reading no one can
/// misunderstand.
///
/// It only tracks strings, nesting and lines (the decoder checks the rest, and any text, even
/// broken, is scanned without trapping); keys are compared after their escapes are decoded
/// (`"a"` and `"\u0061"` are one key).
package enum JSONDuplicateKeys {
    /// A key given twice in one object.
    package struct Duplicate: Equatable {
        /// The key's path, `gap` or `copy.en`.
        package let path: String
        /// 1-based lines of the second occurrence and of the first.
        package let line: Int
        /// The line of the first occurrence.
        package let firstLine: Int
    }

    /// One open object or array. It keeps the key it sits under in its parent, not its path:
    /// a path per frame would copy the parent's path at every open bracket, so 30,000 nested
    /// brackets (60 KB) would build paths of 900 million bytes in all. The path is spelled
    /// only when a duplicate is reported.
    private struct Frame {
        var isObject: Bool
        /// The key this value sits under in its parent object; `nil` in an array or at the top.
        var key: String?
        var lines: [String: Int] = [:]
        var expectingKey = true
    }

    /// Deeper than this the scan stops: Foundation's JSON parser refuses nesting past 512
    /// levels itself, so nothing deeper can decode, and the scan's work stays linear.
    package static let maximumDepth = 512

    /// The first key given twice in one object of `data`, or `nil`.
    package static func first(in data: Data) -> Duplicate? {
        let bytes = [UInt8](data)
        var stack: [Frame] = []
        var line = 1
        var index = 0
        /// The key just read, whose value comes next.
        var pendingKey: String?
        func path(to key: String) -> String {
            var path = ""
            for (depth, frame) in stack.enumerated() where depth > 0 {
                path += stack[depth - 1].isObject ? (path.isEmpty ? "" : ".") + (frame.key ?? "") : "[]"
            }
            return path.isEmpty ? key : "\(path).\(key)"
        }
        func open(object: Bool) -> Bool {
            guard stack.count < maximumDepth else { return false }
            let key = stack.last?.isObject == true ? pendingKey ?? "" : nil
            stack.append(Frame(isObject: object, key: key))
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                index += 1
            case UInt8(ascii: "\""):
                let startLine = line
                let (text, next) = string(bytes, from: index + 1)
                index = next
                let top = stack.count - 1
                if top >= 0, stack[top].isObject, stack[top].expectingKey {
                    if let firstLine = stack[top].lines[text] {
                        return Duplicate(path: path(to: text), line: startLine, firstLine: firstLine)
                    }
                    stack[top].lines[text] = startLine
                    stack[top].expectingKey = false
                    pendingKey = text
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // Too deep for any JSON decoder to read: the decoder refuses the text.
                guard open(object: byte == UInt8(ascii: "{")) else { return nil }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }  // unbalanced text: the decoder refuses it
                index += 1
            case UInt8(ascii: ","):
                if let top = stack.indices.last, stack[top].isObject { stack[top].expectingKey = true }
                index += 1
            default:
                index += 1
            }
        }
        return nil
    }

    /// The decoded text of the string whose body starts at `start`, and the index past its
    /// closing quote.
    private static func string(_ bytes: [UInt8], from start: Int) -> (String, Int) {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        var index = start
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= bytes.count, let text = String(bytes: bytes[at..<at + 4], encoding: .ascii) else { return nil }
            return UInt32(text, radix: 16)
        }
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                raw.append(bytes[index])
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): raw.append(0x08)
            case UInt8(ascii: "f"): raw.append(0x0C)
            case UInt8(ascii: "n"): raw.append(0x0A)
            case UInt8(ascii: "r"): raw.append(0x0D)
            case UInt8(ascii: "t"): raw.append(0x09)
            case UInt8(ascii: "u"):
                guard var code = hex4(index) else { continue }
                index += 4
                // A surrogate pair spells one scalar in two escapes.
                if (0xD800..<0xDC00).contains(code), bytes.count > index + 1, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"), let low = hex4(index + 2), (0xDC00..<0xE000).contains(low)
                {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                flush()
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: raw.append(escape)  // \" \\ \/
            }
        }
        flush()
        return (String(scalars), index + 1)
    }
}
