import Foundation

/// The persisted form of the ledger, shared by every store: `{"schema": 1, "ledger": {...}}`.
public enum LedgerCoding {
    /// The schema this build writes and reads.
    public static let schemaVersion = 1

    /// Why stored bytes are not a ledger this build can use.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Why, in words for a log.
        public let reason: String
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
            return .failure(Failure(
                reason: "it was written by a newer Permit (schema \(header.schema); this build reads up to \(schemaVersion))"))
        }
        do {
            return .success(try decoder.decode(Envelope.self, from: data).ledger)
        } catch {
            return .failure(Failure(reason: "it is damaged (\(describe(error)))"))
        }
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
            let expected = type == Int.self || type == Int64.self ? "a whole number"
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
