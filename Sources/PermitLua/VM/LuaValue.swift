/// A Lua value copied out of (or into) a `LuaVM`.
///
/// Reading never runs Lua code: tables are read with raw access (no `__index`,
/// `__pairs` or `__len`), strings are decoded as UTF-8 (invalid bytes become
/// U+FFFD). Functions read from results become `.ref` only when the caller asks
/// to keep them (otherwise `.other("function")`); threads and userdata are
/// `.other(typeName)`.
public enum LuaValue: Sendable, Hashable {
    /// `nil`.
    case `nil`
    /// A boolean.
    case boolean(Bool)
    /// An integer.
    case integer(Int64)
    /// A float.
    case number(Double)
    /// A string.
    case string(String)
    /// A table, copied out of the VM.
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

    /// Whether the value is `nil`.
    public var isNil: Bool { if case .nil = self { true } else { false } }
    /// The string, if the value is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The boolean, if the value is one.
    public var boolValue: Bool? { if case .boolean(let b) = self { b } else { nil } }
    /// The table, if the value is one.
    public var tableValue: LuaTable? { if case .table(let t) = self { t } else { nil } }
    /// The reference, if the value is one.
    public var refValue: LuaRef? { if case .ref(let r) = self { r } else { nil } }
    /// Integers, and floats with an exact integer value.
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .number(let d): Int64(exactly: d)
        default: nil
        }
    }
    /// The number as a `Double`, integer or float.
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
    /// A string literal is a Lua string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is a Lua integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A float literal is a Lua float.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean literal is a Lua boolean.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    /// `nil` is Lua's nil.
    public init(nilLiteral: ()) { self = .nil }
}

/// A Lua table as ordered key/value pairs.
///
/// When read from Lua the order is deterministic: integer keys 1...n of the
/// sequence first, then the other keys sorted (numbers, then strings, then
/// booleans, then the rest in traversal order).
public struct LuaTable: Sendable, Hashable {
    /// One key and its value.
    public struct Entry: Sendable, Hashable {
        /// The key.
        public var key: LuaValue
        /// The value.
        public var value: LuaValue
        /// An entry.
        public init(key: LuaValue, value: LuaValue) {
            self.key = key
            self.value = value
        }
    }

    /// The entries in the order `next` walked them.
    public var entries: [Entry]
    /// The Lua table had a metatable (which was not consulted while reading).
    public var hasMetatable: Bool

    /// A table of `entries`.
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

    /// The value under `key`, or `nil` when absent.
    public subscript(key: LuaValue) -> LuaValue? {
        entries.first(where: { $0.key == key })?.value
    }

    /// The value under a string key.
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

/// What `print` and `permit.log` wrote since the last drain.
public struct LuaTrace: Sendable, Equatable {
    /// What was written, up to the cap.
    public var text: String
    /// The cap was reached; `droppedBytes` were not kept.
    public var truncated: Bool
    /// How many bytes were dropped.
    public var droppedBytes: Int
}
