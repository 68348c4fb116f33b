import Foundation
import PermitCore

/// `permit decide --history FILE`: a ledger as a store saves it (`{"schema": 1, "ledger": {...}}`)
/// or a bare ledger (`{"launches": 3}`). Anything else is refused naming the file, the line and
/// the field: a value that is not a count, a count below zero, a newer schema, an unknown key or
/// a key given twice would otherwise be read as a different ledger than the one the user meant.
enum HistoryFile {
    /// Why the file is not a ledger: the message, with the field's line when it can be found.
    struct Problem: Error {
        let message: String
    }

    static func ledger(from data: Data, named name: String) throws(Problem) -> Ledger {
        let text = String(decoding: data, as: UTF8.self)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Problem(
                message: "\(name): not a JSON object; write a ledger like {\"launches\": 3} "
                    + "or one a JSONFileLedgerStore saved ({\"schema\": 1, \"ledger\": {...}})")
        }
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            throw Problem(
                message: "\(name):\(duplicate.line): \(duplicate.path) is given twice (first at line \(duplicate.firstLine)); "
                    + "a ledger names each field once: keep the value you mean and delete the other")
        }
        if object["schema"] != nil || object["ledger"] != nil {
            switch LedgerCoding.decode(data) {
            case .success(let ledger): return ledger
            case .failure(let failure):
                throw Problem(
                    message: "\(name)\(lineSuffix(failure.field, in: text)): \(failure.reason); "
                        + advice(for: failure.field))
            }
        }
        for key in object.keys.sorted() where !Ledger.topLevelFields.contains(key) {
            throw Problem(
                message: "\(name)\(lineSuffix(key, in: text)): unknown ledger field \"\(key)\"; "
                    + Suggestion.hint(for: key, in: Ledger.topLevelFields))
        }
        let ledger: Ledger
        do {
            ledger = try JSONDecoder().decode(Ledger.self, from: data)
        } catch {
            if let (field, message) = LedgerCoding.unplacedProblem(error, in: data) {
                throw Problem(message: "\(name)\(lineSuffix(field, in: text)): \(field): \(message); " + advice(for: field))
            }
            let field = LedgerCoding.path(of: error)
            throw Problem(message: "\(name)\(lineSuffix(field, in: text)): \(LedgerCoding.describe(error)); " + advice(for: field))
        }
        if let (field, _) = ledger.negativeCounter, let problem = ledger.valueProblem {
            throw Problem(message: "\(name)\(lineSuffix(field, in: text)): \(problem); " + advice(for: field))
        }
        return ledger
    }

    private static func advice(for field: String?) -> String {
        if field == "schema" {
            return
                "give a ledger written by this version of Permit (schema \(LedgerCoding.schemaVersion)), or a bare ledger without \"schema\""
        }
        return "give a whole number of 0 or more for a count and Unix seconds for a time, or leave the field out"
    }

    /// `:LINE` of the last key of `field` (`soft_prompt.shown`), found in order in `text`, or
    /// nothing when a key cannot be found.
    private static func lineSuffix(_ field: String?, in text: String) -> String {
        guard let field else { return "" }
        var rest = text[...]
        var line: Int?
        for key in field.split(separator: ".") where !key.hasPrefix("[") {
            guard let range = rest.range(of: "\"\(key)\"") else { return line.map { ":\($0)" } ?? "" }
            line = text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            rest = text[range.upperBound...]
        }
        return line.map { ":\($0)" } ?? ""
    }
}
