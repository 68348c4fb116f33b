/// A Lua value copied out of (or into) a `LuaVM`.
///
/// Reading never runs Lua code: tables are read with raw access (no `__index`,
/// `__pairs` or `__len`), strings are decoded as UTF-8 (invalid bytes become
/// U+FFFD). Functions read from results become `.ref` only when the caller asks
/// to keep them (otherwise `.other("function")`); threads and userdata are
/// `.other(typeName)`.
public enum LuaValue: Sendable, Hashable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case table(LuaTable)
    /// A value held in the VM's registry (a function, or a table stored with
    /// `LuaVM.store`). Pushing it passes the very same Lua value.
    case ref(LuaRef)
    /// A value that cannot be copied (thread, userdata, unkept function).
    case other(String)

    /// The Lua type name (`"nil"`, `"number"`, `"table"`, ...).
    public var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .table: "table"
        case .ref(let r): r.typeName
        case .other(let name): name
        }
    }

    public var isNil: Bool { if case .nil = self { true } else { false } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .boolean(let b) = self { b } else { nil } }
    public var tableValue: LuaTable? { if case .table(let t) = self { t } else { nil } }
    public var refValue: LuaRef? { if case .ref(let r) = self { r } else { nil } }
    /// Integers, and floats with an exact integer value.
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .number(let d): Int64(exactly: d)
        default: nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }
}

extension LuaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(nilLiteral: ()) { self = .nil }
}

/// A Lua table as ordered key/value pairs.
///
/// When read from Lua the order is deterministic: integer keys 1...n of the
/// sequence first, then the other keys sorted (numbers, then strings, then
/// booleans, then the rest in traversal order).
public struct LuaTable: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var key: LuaValue
        public var value: LuaValue
        public init(key: LuaValue, value: LuaValue) {
            self.key = key
            self.value = value
        }
    }

    public var entries: [Entry]
    /// The Lua table had a metatable (which was not consulted while reading).
    public var hasMetatable: Bool

    public init(entries: [Entry] = [], hasMetatable: Bool = false) {
        self.entries = entries
        self.hasMetatable = hasMetatable
    }

    /// A sequence `{ v1, v2, ... }`.
    public init(array: [LuaValue]) {
        self.init(entries: array.enumerated().map { Entry(key: .integer(Int64($0.offset + 1)), value: $0.element) })
    }

    /// A record with string keys (sorted, so the result is deterministic).
    public init(_ fields: [String: LuaValue]) {
        self.init(entries: fields.keys.sorted().map { Entry(key: .string($0), value: fields[$0]!) })
    }

    public subscript(key: LuaValue) -> LuaValue? {
        entries.first(where: { $0.key == key })?.value
    }

    public subscript(field: String) -> LuaValue? { self[.string(field)] }

    /// Values of keys 1, 2, ... up to the first missing index.
    public var sequence: [LuaValue] {
        var out: [LuaValue] = []
        while let v = self[.integer(Int64(out.count + 1))] { out.append(v) }
        return out
    }
}

/// A handle on a value in a `LuaVM`'s registry (valid until released or the
/// VM is gone). Only the VM that made it accepts it.
public struct LuaRef: Sendable, Hashable {
    let owner: UInt64
    let slot: Int32
    let generation: UInt32
    /// `"function"` or `"table"`.
    public let typeName: String
}

/// Compatibility spelling used in the issue.
public typealias LuaFunctionRef = LuaRef

/// What `print` and `permit.log` wrote since the last drain.
public struct LuaTrace: Sendable, Equatable {
    public var text: String
    /// The cap was reached; `droppedBytes` were not kept.
    public var truncated: Bool
    public var droppedBytes: Int
}
