import PermitCore
import PermitLua

/// `permit check`'s static half of the strict ctx: every `ctx.a.b.c` chain written in a policy's
/// source, walked against `ContextSchema`, so a misspelt field is reported with its line
/// before any test runs (the runtime error only comes from the code paths a test reaches).
///
/// A plain scan, not a Lua parser: comments and strings are blanked first, then each `ctx`
/// name not preceded by `.` or `:` is followed through `.name` steps. It does not follow a
/// table into a local (`local h = ctx.history; h.shwon`), a bracketed key (`ctx["x"]`), or a
/// ctx passed under another name; the runtime check covers those.
public enum ContextPathCheck {
    /// Every unknown field in `source`, each with its line and a suggestion.
    public static func problems(
        in source: String, chunkName: String, params: [String], events: [String]
    ) -> [PolicyError] {
        let code = Array(blankingCommentsAndStrings(source).utf8)
        var problems: [PolicyError] = []
        var index = 0
        var line = 1
        while index < code.count {
            let byte = code[index]
            if byte == UInt8(ascii: "\n") { line += 1 }
            if isNameStart(byte), index == 0 || !isNameByte(code[index - 1]) {
                let end = nameEnd(code, from: index)
                let previous = previousNonSpace(code, before: index)
                if String(decoding: code[index..<end], as: UTF8.self) == "ctx", previous != UInt8(ascii: "."),
                    previous != UInt8(ascii: ":")
                {
                    let steps = chain(code, from: end, line: line)
                    if let problem = check(steps, params: params, events: events) {
                        problems.append(
                            PolicyError(
                                kind: .load, field: problem.path, message: problem.message, file: chunkName, line: problem.line))
                    }
                }
                index = end
                continue
            }
            index += 1
        }
        return problems
    }

    /// One `.name` step of a chain and the line it is on.
    struct Step {
        let name: String
        let line: Int
    }

    /// The `.name` steps after `ctx` (spaces and newlines allowed around the dots).
    static func chain(_ code: [UInt8], from start: Int, line: Int) -> [Step] {
        var steps: [Step] = []
        var index = start
        var line = line
        while true {
            var at = index
            var lineAt = line
            while at < code.count, isSpace(code[at]) {
                if code[at] == UInt8(ascii: "\n") { lineAt += 1 }
                at += 1
            }
            // `..` is concatenation, not a field.
            guard at < code.count, code[at] == UInt8(ascii: "."), at + 1 >= code.count || code[at + 1] != UInt8(ascii: ".") else {
                return steps
            }
            at += 1
            while at < code.count, isSpace(code[at]) {
                if code[at] == UInt8(ascii: "\n") { lineAt += 1 }
                at += 1
            }
            guard at < code.count, isNameStart(code[at]) else { return steps }
            let end = nameEnd(code, from: at)
            steps.append(Step(name: String(decoding: code[at..<end], as: UTF8.self), line: lineAt))
            index = end
            line = lineAt
        }
    }

    /// The first unknown step of a chain, walked through the schema.
    static func check(_ steps: [Step], params: [String], events: [String]) -> (path: String, message: String, line: Int)? {
        var record: ContextSchema.Record? = ContextSchema.context
        var path = "ctx"
        var index = 0
        while index < steps.count, let current = record {
            let step = steps[index]
            guard let field = current[step.name] else {
                let hint = Suggestion.closest(to: step.name, in: current.fields.map(\.name)).map { "; did you mean \"\($0)\"?" } ?? ""
                return (path, "has no field \"\(step.name)\"\(hint)", step.line)
            }
            path += "." + step.name
            index += 1
            record = nil
            if let next = ContextSchema.records[field.type] {
                record = next
            } else if path == "ctx.params", index < steps.count {
                // Closed over the params the policy declares; what is inside one is its own data.
                let name = steps[index].name
                guard params.contains(name) else {
                    let hint = Suggestion.closest(to: name, in: params).map { "; did you mean \"\($0)\"?" } ?? ""
                    return (path, "has no field \"\(name)\"\(hint) (declare it in the policy's params)", steps[index].line)
                }
            } else if field.type == "table<string, PermitEventHistory>", index < steps.count {
                let name = steps[index].name
                guard events.contains(name) else {
                    let hint = Suggestion.closest(to: name, in: events).map { "; did you mean \"\($0)\"?" } ?? ""
                    return (
                        path, "has no field \"\(name)\"\(hint) (list app events in the policy's events = { ... })",
                        steps[index].line
                    )
                }
                path += "." + name
                index += 1
                record = ContextSchema.eventHistory
            } else if field.type == "table<string, PermitFeatureHistory>", index < steps.count {
                path += "." + steps[index].name
                index += 1
                record = ContextSchema.featureHistory
            }
        }
        return nil
    }

    // MARK: Text

    /// `source` with every comment and string literal replaced by spaces (newlines kept), so
    /// that `"ctx.x"` in a message or `-- ctx.x` in a comment is not read as code.
    static func blankingCommentsAndStrings(_ source: String) -> String {
        var bytes = Array(source.utf8)
        var index = 0
        func blank(_ from: Int, _ to: Int) {
            for at in from..<min(to, bytes.count) where bytes[at] != UInt8(ascii: "\n") { bytes[at] = UInt8(ascii: " ") }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                if let end = longBracketEnd(bytes, at: index + 2) {
                    blank(index, end)
                    index = end
                } else {
                    var end = index
                    while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                    blank(index, end)
                    index = end
                }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                var end = index + 1
                while end < bytes.count, bytes[end] != byte, bytes[end] != UInt8(ascii: "\n") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                blank(index, end + 1)
                index = end + 1
            } else if byte == UInt8(ascii: "["), let end = longBracketEnd(bytes, at: index) {
                blank(index, end)
                index = end
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// For `[[`, `[==[` ... at `at`: the index just past its closing bracket (or the end).
    static func longBracketEnd(_ bytes: [UInt8], at: Int) -> Int? {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "[") else { return nil }
        var level = 0
        var index = at + 1
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") {
            level += 1
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        let close = [UInt8(ascii: "]")] + Array(repeating: UInt8(ascii: "="), count: level) + [UInt8(ascii: "]")]
        var search = index + 1
        while search + close.count <= bytes.count {
            if Array(bytes[search..<search + close.count]) == close { return search + close.count }
            search += 1
        }
        return bytes.count
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || byte == 95
    }

    static func isNameByte(_ byte: UInt8) -> Bool { isNameStart(byte) || (byte >= 48 && byte <= 57) }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9 || byte == 10 || byte == 13
    }

    static func nameEnd(_ code: [UInt8], from start: Int) -> Int {
        var end = start
        while end < code.count, isNameByte(code[end]) { end += 1 }
        return end
    }

    static func previousNonSpace(_ code: [UInt8], before index: Int) -> UInt8? {
        var at = index - 1
        while at >= 0, isSpace(code[at]) { at -= 1 }
        return at >= 0 ? code[at] : nil
    }
}
