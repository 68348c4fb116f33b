import Foundation

/// The persisted form of the ledger, shared by every store: `{"schema": 1, "ledger": {...}}`.
public enum LedgerCoding {
    /// The schema this build writes and reads.
    public static let schemaVersion = 1

    /// Why stored bytes are not a ledger this build can use.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Why, in words for a log.
        public let reason: String
        /// The field at fault as a path (`ledger.soft_prompt.shown`), when one is.
        public var field: String?
        /// The reason.
        public var description: String { reason }
    }

    private struct Envelope: Codable {
        var schema: Int
        var ledger: Ledger
    }

    private struct SchemaOnly: Decodable {
        var schema: Int
    }

    /// The ledger in its envelope, keys sorted so that equal ledgers are equal bytes.
    public static func encode(_ ledger: Ledger) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(Envelope(schema: schemaVersion, ledger: ledger))
    }

    /// The ledger from stored bytes, or why they are not one this build can use.
    public static func decode(_ data: Data) -> Result<Ledger, Failure> {
        if data.isEmpty { return .failure(Failure(reason: "it is empty")) }
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(SchemaOnly.self, from: data) else {
            return .failure(Failure(reason: "it is not a Permit ledger (no readable \"schema\" field)"))
        }
        guard header.schema <= schemaVersion else {
            return .failure(
                Failure(
                    reason: "it was written by a newer Permit (schema \(header.schema); this build reads up to \(schemaVersion))",
                    field: "schema"))
        }
        guard header.schema >= 1 else {
            return .failure(
                Failure(
                    reason: "schema \(header.schema) is no Permit ledger schema (they start at 1)", field: "schema"))
        }
        // The decoder would keep one of two equal keys and say nothing: which value the app
        // runs on would be a guess, so the bytes are damage, naming the key.
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            return .failure(
                Failure(
                    reason: "it is damaged (\(duplicate.path) appears twice, at lines \(duplicate.firstLine) and \(duplicate.line))",
                    field: duplicate.path))
        }
        let ledger: Ledger
        do {
            ledger = try decoder.decode(Envelope.self, from: data).ledger
        } catch {
            if let (field, message) = unplacedProblem(error, in: data) {
                return .failure(Failure(reason: "it is damaged (\(field): \(message))", field: field))
            }
            return .failure(Failure(reason: "it is damaged (\(describe(error)))", field: path(of: error)))
        }
        if let (field, _) = ledger.negativeCounter, let problem = ledger.valueProblem {
            return .failure(Failure(reason: "it is damaged (ledger.\(problem))", field: "ledger." + field))
        }
        return .success(ledger)
    }

    /// The field and problem of a decoding error Foundation reports without a place: on some
    /// platforms a number that is not a whole number, or too large for one (`1.5`, `1e300`), is
    /// only "not valid JSON". The JSON is walked for the first such number outside `state`
    /// (which may hold any number). `nil` when the error has a place or none is found.
    public static func unplacedProblem(_ error: any Error, in data: Data) -> (field: String, message: String)? {
        guard case DecodingError.dataCorrupted(let context) = error, context.codingPath.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: data)
        else { return nil }
        func walk(_ value: Any, _ path: [String]) -> (field: String, message: String)? {
            if let table = value as? [String: Any] {
                for key in table.keys.sorted() where key != "state" {
                    if let found = walk(table[key]!, path + [key]) { return found }
                }
            } else if let number = value as? NSNumber, !(value is Bool), !(value is String) {
                if (number as? Int64) == nil, Int64(exactly: number.doubleValue) == nil {
                    return (path.joined(separator: "."), "\(number) is not a whole number (counts and times are whole numbers)")
                }
            }
            return nil
        }
        return walk(object, [])
    }

    /// Where a decoding error is, as a dotted path (`ledger.launches`), or `nil`.
    public static func path(of error: any Error) -> String? {
        guard let error = error as? DecodingError else { return nil }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): context = c
        case .keyNotFound(let key, let c): return (c.codingPath + [key]).map(\.stringValue).joined(separator: ".")
        @unknown default: return nil
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? nil : path
    }

    /// A decoding error as a path and a sentence a person can act on:
    /// `ledger.launches: expected a whole number`.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let expected =
                type == Int.self || type == Int64.self
                ? "a whole number"
                : type == Bool.self ? "true or false" : type == String.self ? "text" : "a value of type \(type)"
            return path(context).isEmpty ? "expected \(expected)" : "\(path(context)): expected \(expected)"
        case .dataCorrupted(let context):
            return path(context).isEmpty ? context.debugDescription : "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "missing \(key.stringValue)"
        @unknown default:
            return "\(error)"
        }
    }
}
