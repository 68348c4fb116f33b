import Foundation
import PermitCore

/// Dotted-path access to the ledger by its Lua names.
enum LedgerPaths {
    static func table(of ledger: Ledger) -> PolicyValue {
        guard let data = try? JSONEncoder().encode(ledger),
            let value = try? JSONDecoder().decode(PolicyValue.self, from: data)
        else { return .table([:]) }
        return value
    }

    static func value(at path: String, in table: PolicyValue) -> PolicyValue? {
        var current: PolicyValue? = table
        for part in path.split(separator: ".") {
            guard case .table(let fields)? = current else { return nil }
            current = fields[String(part)]
        }
        return current
    }

    /// Numbers compare by value (`3` matches `3.0`); `nil` matches a missing field.
    static func matches(_ actual: PolicyValue?, _ expected: PolicyValue?) -> Bool {
        switch (actual, expected) {
        case (nil, nil): return true
        case (.integer(let a)?, .number(let b)?): return Double(a) == b
        case (.number(let a)?, .integer(let b)?): return a == Double(b)
        default: return actual == expected
        }
    }
}
