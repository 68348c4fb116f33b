/// A value that crosses between the host and a policy: params, remembered state.
///
/// Lua distinguishes integers from floats, so this does too: a remembered `3` comes back as
/// `3`, not `3.0`.
public enum PolicyValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A boolean.
    case bool(Bool)
    /// An integer (Lua keeps integers and floats apart; so does Permit).
    case integer(Int64)
    /// A float.
    case number(Double)
    /// A string.
    case string(String)
    /// A list (a Lua sequence).
    case list([PolicyValue])
    /// A table with string keys.
    case table([String: PolicyValue])

    /// Scalars are what `remember` may store: strings, numbers and booleans.
    public var isScalar: Bool {
        switch self {
        case .bool, .integer, .number, .string: true
        case .list, .table: false
        }
    }

    /// The type name a policy author would recognise, for error messages.
    public var typeName: String {
        switch self {
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .list, .table: "table"
        }
    }

    /// The value as a policy author would write it.
    public var description: String {
        switch self {
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): "\"\(value)\""
        case .list(let values): "{" + values.map(\.description).joined(separator: ", ") + "}"
        case .table(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// Bytes this value costs against the 4 KiB `remember` budget: its text length for
    /// strings, 8 for numbers, 1 for booleans.
    var storageCost: Int {
        switch self {
        case .bool: 1
        case .integer, .number: 8
        case .string(let text): text.utf8.count
        case .list(let values): values.reduce(0) { $0 + $1.storageCost }
        case .table(let fields): fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageCost }
        }
    }

    /// Decodes from JSON or YAML-derived values, keeping integers and floats apart.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([PolicyValue].self) {
            self = .list(value)
        } else if let value = try? container.decode([String: PolicyValue].self) {
            self = .table(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a string, number, boolean, list or table")
        }
    }

    /// Encodes as the matching JSON value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        case .table(let value): try container.encode(value)
        }
    }
}
