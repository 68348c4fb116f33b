import Foundation

/// Reads a file a person wrote as UTF-8 text, saying exactly where it is not.
///
/// Foundation's refusal ("The file couldn't be opened because it isn't in the correct
/// format") names neither the byte nor the line, and a file saved in Latin-1 by one editor
/// usually has a single stray byte in a comment: the user needs its place.
package enum InputText {
    package static func read(_ url: URL, name: String) throws(InputError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw InputError("cannot read the file (\(error.localizedDescription))", at: SourceLocation(file: name, line: 1, column: 1))
        }
        return try decode(data, name: name)
    }

    package static func decode(_ data: Data, name: String) throws(InputError) -> String {
        if let text = String(validating: data, as: UTF8.self) { return text }
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                offset += encoded.count
            case .error(let length):
                let byte = data[data.startIndex + offset]
                throw InputError(
                    "the file is not UTF-8 text: byte \(offset) (0x\(String(byte, radix: 16, uppercase: true))) does not "
                        + "start a valid UTF-8 character" + (length > 1 ? " sequence" : ""),
                    at: SourceLocation(file: name, line: line, column: column),
                    hint: "save the file as UTF-8 (an editor's \"encoding\" setting); Latin-1 and UTF-16 are not read")
            case .emptyInput:
                throw InputError("the file is not UTF-8 text", at: SourceLocation(file: name, line: line, column: column))
            }
        }
    }
}
