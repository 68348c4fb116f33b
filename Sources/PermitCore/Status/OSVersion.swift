/// An iOS version such as `9`, `12.4` or `15.4.1`.
///
/// Comparison is numeric by component, so `15.10 > 15.4` and `12 == 12.0.0`.
public struct OSVersion: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The major version (`15` of 15.4).
    public let major: Int
    /// The minor version.
    public let minor: Int
    /// The patch version.
    public let patch: Int

    /// The oldest iOS Permit models: iOS 8 introduced user notification settings.
    public static let oldestSupported = OSVersion(major: 8)

    /// A version from its parts.
    public init(major: Int, minor: Int = 0, patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `"9"`, `"12.4"`, `"15.4.1"`. Throws an `OSVersionError` that says what is wrong.
    public init(parsing text: String) throws(OSVersionError) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw OSVersionError(text: text, reason: "it is empty") }
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 3 else {
            throw OSVersionError(text: text, reason: "it has \(parts.count) parts; use major[.minor[.patch]]")
        }
        var numbers: [Int] = []
        for (index, part) in parts.enumerated() {
            let label = ["major", "minor", "patch"][index]
            guard !part.isEmpty else {
                throw OSVersionError(text: text, reason: "the \(label) part is empty")
            }
            guard part.allSatisfy({ $0.isASCII && $0.isNumber }), part.count <= 4, let number = Int(part) else {
                throw OSVersionError(text: text, reason: "the \(label) part \"\(part)\" is not a number")
            }
            numbers.append(number)
        }
        let version = OSVersion(
            major: numbers[0],
            minor: numbers.count > 1 ? numbers[1] : 0,
            patch: numbers.count > 2 ? numbers[2] : 0
        )
        guard version >= OSVersion.oldestSupported else {
            throw OSVersionError(text: text, reason: "Permit models iOS 8 and later")
        }
        self = version
    }

    /// Compares major, then minor, then patch.
    ///
    /// Spelled out rather than as a tuple comparison, and with its three siblings below instead
    /// of `Comparable`'s defaults: the capability table compares versions a dozen times a
    /// device, and in a debug build (the test suite's) a tuple `<` or a default `>=` looks up
    /// generic metadata on every call.
    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        return lhs.patch < rhs.patch
    }

    /// Whether `lhs` comes after `rhs`.
    public static func > (lhs: OSVersion, rhs: OSVersion) -> Bool { rhs < lhs }

    /// Whether `lhs` comes before `rhs` or is equal to it.
    public static func <= (lhs: OSVersion, rhs: OSVersion) -> Bool { !(rhs < lhs) }

    /// Whether `lhs` comes after `rhs` or is equal to it.
    public static func >= (lhs: OSVersion, rhs: OSVersion) -> Bool { !(lhs < rhs) }

    /// `12.4`, `9.0`, `15.4.1`: always major.minor, the patch only when non-zero.
    public var description: String {
        patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
    }

    /// Decodes from the text form (`"15.4"`), as ledgers and scenario files write it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        if let number = try? container.decode(Int.self) {
            text = String(number)
        } else if let number = try? container.decode(Double.self) {
            text = String(number)
        } else {
            text = try container.decode(String.self)
        }
        do {
            self = try OSVersion(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes as the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A version string that could not be read, and why.
public struct OSVersionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text that was given.
    public let text: String
    /// What is wrong with it.
    public let reason: String
    /// A sentence naming the text and the problem.
    public var description: String { "invalid iOS version \"\(text)\": \(reason)" }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
