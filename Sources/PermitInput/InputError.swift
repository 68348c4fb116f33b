/// A place in an input file: 1-based line and column.
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file, as the user named it.
    public var file: String
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// A position in `file`.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, as editors and terminals link it.
    public var description: String { "\(file):\(line):\(column)" }
}

/// A mistake in a file a person wrote: where it is, which field, what is wrong, what to do.
///
/// `permit` prints these and exits 2; they are never a crash or a stack trace.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the mistake is, when known.
    public var location: SourceLocation?
    /// The field's path, e.g. `steps[3].after`.
    public var field: String?
    /// What is wrong.
    public var message: String
    /// What to do about it, when there is something useful to say.
    public var hint: String?

    /// An error at `location` in `field`, with a `hint` of what to write instead.
    public init(_ message: String, at location: SourceLocation? = nil, field: String? = nil, hint: String? = nil) {
        self.location = location
        self.field = field
        self.message = message
        self.hint = hint
    }

    /// `tests/deny.yaml:12:5: steps[3].after: "5x" is not a duration; use 30s, 5m, 2h, 3d or 1d12h`
    public var description: String {
        var text = ""
        if let location { text += "\(location): " }
        if let field { text += "\(field): " }
        text += message
        if let hint { text += "; \(hint)" }
        return text
    }
}
