/// An event of the app's own (`lesson_completed`), with a few scalar properties the policy
/// reads as `ctx.event.properties`.
///
/// Why bounded and checked here: the name becomes a ledger key that is saved on every event
/// and read by every policy call, and the properties are copied into the VM each time. A host
/// bug (an id in the name, a JSON blob as a property) must fail at once, where the host builds
/// the event, with a sentence that says what to change, not slowly grow the ledger.
public struct CustomEvent: Sendable, Hashable {
    /// The name: lower-case letters, digits and `_`, starting with a letter, at most
    /// `maxNameBytes` bytes, and not one of the built-in names (`AppEvent.names`).
    public let name: String
    /// String (at most `maxStringBytes`), integer, finite number or boolean values, at most
    /// `maxProperties` of them, named like Lua identifiers.
    public let properties: [String: PolicyValue]

    /// The longest event or property name.
    public static let maxNameBytes = 64
    /// The most properties one event carries.
    public static let maxProperties = 16
    /// The longest string property.
    public static let maxStringBytes = 256

    /// Checks and makes the event; the error says which rule the name or a property breaks.
    public init(_ name: String, properties: [String: PolicyValue] = [:]) throws(CustomEventError) {
        if let problem = CustomEvent.problem(withName: name) { throw CustomEventError(message: problem) }
        guard properties.count <= CustomEvent.maxProperties else {
            throw CustomEventError(
                message: "event \"\(name)\" has \(properties.count) properties, more than the "
                    + "\(CustomEvent.maxProperties) allowed; send fewer (the ledger keeps only the count and time anyway)")
        }
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            if let problem = CustomEvent.problem(withProperty: key, value: value) {
                throw CustomEventError(message: "event \"\(name)\", property \"\(key)\": \(problem)")
            }
        }
        self.name = name
        self.properties = properties
    }

    /// Why `name` cannot name an event of the app's own, or nil when it can.
    public static func problem(withName name: String) -> String? {
        if AppEvent.names.contains(name) {
            return "\"\(name)\" is a built-in event; send it as AppEvent.\(builtInCase(name)) instead"
        }
        guard isName(name) else {
            return "\"\(name)\" is not an event name: use lower-case letters, digits and _, starting with a letter, "
                + "at most \(maxNameBytes) bytes (e.g. lesson_completed)"
        }
        return nil
    }

    private static func problem(withProperty key: String, value: PolicyValue) -> String? {
        guard isName(key) else {
            return "not a property name: use lower-case letters, digits and _, starting with a letter, at most "
                + "\(maxNameBytes) bytes, so a policy can write ctx.event.properties.count"
        }
        switch value {
        case .bool, .integer: return nil
        case .number(let number):
            return number.isFinite ? nil : "\(number) is not a finite number"
        case .string(let text):
            return text.utf8.count <= maxStringBytes
                ? nil
                : "a text of \(text.utf8.count) bytes is longer than the \(maxStringBytes) allowed"
        case .list, .table:
            return "expected a string, number or boolean, got a \(value.typeName)"
        }
    }

    /// Lower-case ASCII letters, digits and `_`, starting with a letter, within `maxNameBytes`:
    /// a name a policy writes as a Lua field without brackets, in any file and tool.
    private static func isName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxNameBytes else { return false }
        for (index, byte) in bytes.enumerated() {
            let lower = byte >= 97 && byte <= 122, digit = byte >= 48 && byte <= 57, underscore = byte == 95
            guard lower || (index > 0 && (digit || underscore)) else { return false }
        }
        return true
    }

    private static func builtInCase(_ name: String) -> String {
        let parts = name.split(separator: "_")
        return parts.first.map(String.init)! + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

/// Why an app event could not be made or handled: its name or a property breaks a rule, or the
/// ledger already counts as many event names as it keeps.
public struct CustomEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }

    /// An error saying `message`.
    public init(message: String) { self.message = message }
}
