import Crypto
import Foundation

/// Names a public key: the first 8 bytes of the SHA-256 of its raw 32 bytes, as 16 lowercase
/// hex digits. Derived from the key, so a key id cannot be claimed by another key.
public struct KeyID: Sendable, Hashable, CustomStringConvertible {
    /// The 16 hex digits.
    public let hex: String

    init(publicKeyBytes: Data) {
        hex = Hex.encode(Data(SHA256.hash(data: publicKeyBytes).prefix(8)))
    }

    /// A key id as written in a bundle; `nil` unless it is 16 lowercase hex digits.
    init?(hex: String) {
        guard hex.utf8.count == 16, hex.utf8.allSatisfy(Hex.isLowerHexDigit) else { return nil }
        self.hex = hex
    }

    /// The hex digits.
    public var description: String { hex }
}

/// An Ed25519 public key trusted to sign policy bundles.
///
/// Text form (what `permit keygen` writes to `NAME.pub`), one line:
/// `permit-ed25519-public <key id> <base64 of the 32 raw bytes>`.
public struct BundlePublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 raw bytes.
    public let rawRepresentation: Data
    /// The key's id, as bundles name their signer.
    public let keyID: KeyID

    /// The 32 raw bytes of an Ed25519 public key.
    public init(rawRepresentation: Data) throws(KeyFileError) {
        guard rawRepresentation.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation)) != nil else {
            throw KeyFileError("an Ed25519 public key is 32 bytes, got \(rawRepresentation.count)")
        }
        self.rawRepresentation = rawRepresentation
        self.keyID = KeyID(publicKeyBytes: rawRepresentation)
    }

    /// Parses the text form (the content of a `.pub` file), or a bare base64 of the 32 bytes.
    public init(text: String) throws(KeyFileError) {
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        if fields.count == 1, let raw = Data(base64Encoded: fields[0]) {
            try self.init(rawRepresentation: raw)
            return
        }
        let raw = try KeyText.parse(fields, kind: "public")
        try self.init(rawRepresentation: raw.bytes)
        guard keyID.hex == raw.keyID else {
            throw KeyFileError("the key id \(raw.keyID) does not belong to this key (its id is \(keyID)); the file was edited")
        }
    }

    /// Reads a `.pub` file.
    public static func read(contentsOf url: URL) throws(KeyFileError) -> BundlePublicKey {
        do {
            return try BundlePublicKey(text: try KeyText.read(url))
        } catch {
            throw error.at(url)
        }
    }

    /// The text form, ending in a newline.
    public var text: String { "permit-ed25519-public \(keyID) \(rawRepresentation.base64EncodedString())\n" }

    /// `ed25519 key <id>`.
    public var description: String { "ed25519 key \(keyID)" }

    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// An Ed25519 private key that signs policy bundles. Keep it out of the app and out of git.
///
/// Text form (`NAME.key`, written with mode 0600): `permit-ed25519-private <key id> <base64 of the 32 raw bytes>`.
public struct BundleSigningKey: Sendable {
    /// The 32 raw bytes (the CryptoKit key type is not `Sendable`, so it is rebuilt when used).
    private let raw: Data
    private var key: Curve25519.Signing.PrivateKey {
        // `raw` was checked when the key was made.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: raw)
    }

    /// A new random key.
    public init() { raw = Curve25519.Signing.PrivateKey().rawRepresentation }

    /// The key from its 32 raw private bytes.
    public init(rawRepresentation: Data) throws(KeyFileError) {
        guard rawRepresentation.count == 32, (try? Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)) != nil else {
            throw KeyFileError("an Ed25519 private key is 32 bytes, got \(rawRepresentation.count)")
        }
        self.raw = rawRepresentation
    }

    /// The key from its text form (`permit-ed25519-private <id> <base64>`); a public key or a
    /// mismatched id is refused with a sentence that says so.
    public init(text: String) throws(KeyFileError) {
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        if fields.first == "permit-ed25519-public" {
            throw KeyFileError("this is a public key; signing needs the private key (the .key file from permit keygen)")
        }
        let raw = try KeyText.parse(fields, kind: "private")
        try self.init(rawRepresentation: raw.bytes)
        guard keyID.hex == raw.keyID else {
            throw KeyFileError("the key id \(raw.keyID) does not belong to this key (its id is \(keyID)); the file was edited")
        }
    }

    /// Reads a `.key` file written by `permit keygen`.
    public static func read(contentsOf url: URL) throws(KeyFileError) -> BundleSigningKey {
        do {
            return try BundleSigningKey(text: try KeyText.read(url))
        } catch {
            throw error.at(url)
        }
    }

    /// The matching public key, for the app's trusted keys.
    public var publicKey: BundlePublicKey {
        // A valid private key always has a valid 32-byte public key.
        try! BundlePublicKey(rawRepresentation: key.publicKey.rawRepresentation)
    }

    /// The key's id.
    public var keyID: KeyID { publicKey.keyID }

    /// The text form, ending in a newline.
    public var text: String { "permit-ed25519-private \(keyID) \(raw.base64EncodedString())\n" }

    func signature(for message: Data) throws(BundleError) -> Data {
        do {
            return try key.signature(for: message)
        } catch {
            throw BundleError(.malformed, "signing failed: \(error)")
        }
    }
}

/// A key file that cannot be used, and why.
public struct KeyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the key.
    public var message: String
    /// The file it came from, when there is one.
    public var file: String?

    /// An error about `file`.
    public init(_ message: String, file: String? = nil) {
        self.message = message
        self.file = file
    }

    func at(_ url: URL) -> KeyFileError { KeyFileError(message, file: file ?? url.path) }

    /// `file: message`.
    public var description: String { file.map { "\($0): \(message)" } ?? message }
}

enum KeyText {
    static func read(_ url: URL) throws(KeyFileError) -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw KeyFileError("cannot read the key file", file: url.path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeyFileError("not a Permit key file (not text)", file: url.path)
        }
        return text
    }

    static func parse(_ fields: [String], kind: String) throws(KeyFileError) -> (keyID: String, bytes: Data) {
        let tag = "permit-ed25519-\(kind)"
        guard fields.count == 3, fields[0] == tag else {
            throw KeyFileError("not a Permit \(kind) key: expected one line `\(tag) <key id> <base64>` as permit keygen writes it")
        }
        guard let bytes = Data(base64Encoded: fields[2]) else {
            throw KeyFileError("the key is not valid base64")
        }
        return (fields[1], bytes)
    }
}

enum Hex {
    static func encode(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for byte in data {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isLowerHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
