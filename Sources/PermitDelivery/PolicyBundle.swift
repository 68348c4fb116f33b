import Crypto
import Foundation
import PermitCore

/// Which bundles a host accepts.
public enum BundleTrust: Sendable, Hashable {
    /// Only bundles signed by one of these keys. An unsigned or stripped bundle is refused, and
    /// an empty list refuses everything: there is no configuration that half-checks.
    case keys([BundlePublicKey])
    /// Unsigned bundles are accepted and signatures are not checked (file hashes still are).
    /// For scenarios and local development only; never ship an app with it.
    case unsignedForDevelopment
}

/// One policy bundle: a single file a server can hand out and an app can store.
///
/// The file is one line of JSON in exactly this form (keys in this order, no spaces, standard
/// base64 with padding), ending in a newline:
///
/// `{"format":"permit-bundle/1","manifest":"<b64>","files":{"params.json":"<b64>","policy.lua":"<b64>"},"signature":{"key_id":"<16 hex>","ed25519":"<b64>"}}`
///
/// `signature` is absent from an unsigned bundle. The signature is Ed25519 over
/// `"permit-bundle-manifest/1\n"` followed by the manifest's bytes; the manifest carries the
/// SHA-256 of each file. A reader refuses any file not in this canonical form, so no byte of a
/// bundle can change without the bundle being refused. See docs/bundles.md.
public struct PolicyBundle: Sendable, Hashable {
    /// Who signed the manifest, and the Ed25519 signature.
    public struct Signature: Sendable, Hashable {
        /// The signer's key id.
        public var keyID: KeyID
        /// 64 bytes.
        public var bytes: Data
    }

    /// The first line of every bundle file: names the format, so anything else is refused at once.
    public static let formatTag = "permit-bundle/1"
    /// How far a bundle's `created_at` may lie ahead of the device's clock: 24 hours covers a
    /// device clock that is wrong by a time zone or a day; a bundle dated further ahead was
    /// not made by a publisher with a sane clock (or was made to outlive its expiry) and is refused.
    public static let clockSkewTolerance: TimeInterval = 24 * 3600
    /// Bundles above this size are refused before parsing.
    public static let maximumSize = 4 << 20
    static let signingContext = Data("permit-bundle-manifest/1\n".utf8)

    /// The manifest exactly as signed.
    public var manifestBytes: Data
    /// The files by name: `policy.lua` and `params.json`.
    public var files: [String: Data]
    /// The signature, or `nil` for an unsigned (development) bundle.
    public var signature: Signature?

    /// A bundle from its parts.
    public init(manifestBytes: Data, files: [String: Data], signature: Signature?) {
        self.manifestBytes = manifestBytes
        self.files = files
        self.signature = signature
    }

    /// Builds an unsigned bundle from a policy's source and its params (the JSON object of the
    /// defaults the policy declares), with the pack's copy (`PolicyCopy.encoded()`) when it has one.
    public static func make(
        pack: String, version: Int64, minimumEngine: EngineVersion = .current, createdAt: Date, expiresAt: Date? = nil,
        policy: Data, params: Data, copy: Data? = nil
    ) throws(BundleError) -> PolicyBundle {
        guard BundleManifest.isValidPackName(pack) else {
            throw BundleError(.malformed, "\"\(pack)\" is not a pack name (letters, digits, - _ . ; at most 64)")
        }
        guard version >= 1 else { throw BundleError(.malformed, "the version must be at least 1") }
        let created = Date(timeIntervalSince1970: createdAt.timeIntervalSince1970.rounded(.down))
        let expires = expiresAt.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        if let expires, expires <= created { throw BundleError(.malformed, "the expiry is not after the creation time") }
        var files = ["policy.lua": policy, "params.json": params]
        if let copy { files[BundleManifest.copyFileName] = copy }
        let manifest = BundleManifest(
            pack: pack, version: version, minimumEngine: minimumEngine, createdAt: created, expiresAt: expires,
            files: files.mapValues { BundleManifest.FileEntry(sha256: PolicyBundle.sha256($0), size: $0.count) })
        return PolicyBundle(manifestBytes: manifest.encoded(), files: files, signature: nil)
    }

    /// Parses a bundle file. Only checks the form; `verify` decides whether it is genuine.
    public init(data: Data) throws(BundleError) {
        func bad(_ message: String) -> BundleError { BundleError(.malformed, message) }
        guard data.count <= PolicyBundle.maximumSize else {
            throw bad("\(data.count) bytes is over the \(PolicyBundle.maximumSize)-byte limit")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let top = object as? [String: Any] else {
            throw bad("not a Permit bundle (expected one JSON object as permit bundle writes it)")
        }
        guard top["format"] as? String == PolicyBundle.formatTag else {
            throw bad("not a \(PolicyBundle.formatTag) bundle (format is \(top["format"].map { "\($0)" } ?? "missing"))")
        }
        if let unknown = Set(top.keys).subtracting(["format", "manifest", "files", "signature"]).sorted().first {
            throw bad("unknown field \"\(unknown)\"")
        }
        guard let manifestText = top["manifest"] as? String, let manifest = Data(base64Encoded: manifestText) else {
            throw bad("manifest: expected base64")
        }
        guard let fileTable = top["files"] as? [String: Any] else { throw bad("files: expected a table of base64 contents") }
        var files: [String: Data] = [:]
        for (name, value) in fileTable {
            guard BundleManifest.fileNames.contains(name) || name == BundleManifest.copyFileName else {
                throw bad(
                    "files: unexpected file \"\(name)\" (a bundle holds \(BundleManifest.fileNames.joined(separator: " and ")), "
                        + "and \(BundleManifest.copyFileName) when the pack has copy)")
            }
            guard let text = value as? String, let bytes = Data(base64Encoded: text) else { throw bad("files.\(name): expected base64") }
            files[name] = bytes
        }
        var signature: Signature?
        if let value = top["signature"] {
            guard let table = value as? [String: Any], Set(table.keys) == ["key_id", "ed25519"],
                let idText = table["key_id"] as? String, let keyID = KeyID(hex: idText),
                let sigText = table["ed25519"] as? String, let bytes = Data(base64Encoded: sigText), bytes.count == 64
            else {
                throw bad("signature: expected { key_id = 16 hex digits, ed25519 = base64 of 64 bytes }")
            }
            signature = Signature(keyID: keyID, bytes: bytes)
        }
        self.init(manifestBytes: manifest, files: files, signature: signature)
        guard encoded() == data else {
            throw bad("not in canonical form: the file was changed after permit bundle or permit sign wrote it")
        }
    }

    /// Reads a bundle file (size-checked before parsing); nothing is verified yet.
    public static func read(contentsOf url: URL) throws(BundleError) -> PolicyBundle {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw BundleError(.malformed, "cannot read \(url.path)")
        }
        return try PolicyBundle(data: data)
    }

    /// The file's bytes in canonical form.
    public func encoded() -> Data {
        var text = "{\"format\":\"\(PolicyBundle.formatTag)\",\"manifest\":\"\(manifestBytes.base64EncodedString())\",\"files\":{"
        text += files.keys.sorted().map { "\"\($0)\":\"\(files[$0]!.base64EncodedString())\"" }.joined(separator: ",")
        text += "}"
        if let signature {
            text += ",\"signature\":{\"key_id\":\"\(signature.keyID)\",\"ed25519\":\"\(signature.bytes.base64EncodedString())\"}"
        }
        text += "}\n"
        return Data(text.utf8)
    }

    /// The same bundle signed by `key` (any earlier signature is replaced). Refuses a bundle
    /// whose files do not match its manifest: never sign what you have not checked.
    public func signed(with key: BundleSigningKey) throws(BundleError) -> PolicyBundle {
        let manifest = try BundleManifest.decode(manifestBytes)
        try checkFiles(against: manifest)
        var copy = self
        copy.signature = Signature(keyID: key.keyID, bytes: try key.signature(for: PolicyBundle.signingContext + manifestBytes))
        return copy
    }

    /// Decides whether the bundle is genuine and usable here, in this order: signature (when
    /// keys are trusted), manifest, file hashes, engine version, creation time (not more than
    /// `clockSkewTolerance` ahead of `now`), expiry.
    public func verify(trust: BundleTrust, now: Date, engine: EngineVersion = .current) throws(BundleError) -> VerifiedBundle {
        var signer: KeyID?
        switch trust {
        case .keys(let keys):
            guard !keys.isEmpty else {
                throw BundleError(
                    .noTrustedKeys,
                    "the trusted key list is empty, so no bundle can be verified; configure the public key(s) from permit keygen")
            }
            guard let signature else {
                throw BundleError(.unsigned, "the bundle carries no signature and trusted keys are configured; sign it with permit sign")
            }
            guard let key = keys.first(where: { $0.keyID == signature.keyID }) else {
                throw BundleError(
                    .unknownKeyID,
                    "signed by key \(signature.keyID), which is not trusted (trusted: \(keys.map(\.keyID.hex).joined(separator: ", ")))")
            }
            guard key.isValidSignature(signature.bytes, for: PolicyBundle.signingContext + manifestBytes) else {
                throw BundleError(
                    .badSignature,
                    "the signature of key \(signature.keyID) does not match the manifest; the bundle was altered or signed by another key")
            }
            signer = key.keyID
        case .unsignedForDevelopment:
            signer = nil
        }
        let manifest = try BundleManifest.decode(manifestBytes)
        try checkFiles(against: manifest)
        guard manifest.minimumEngine <= engine else {
            throw BundleError(.engineTooOld, "the bundle needs engine \(manifest.minimumEngine) or newer; this is \(engine)")
        }
        if manifest.createdAt.timeIntervalSince(now) > PolicyBundle.clockSkewTolerance {
            throw BundleError(
                .createdInFuture,
                "the bundle was created at \(Timestamp.format(manifest.createdAt)), more than 24 hours after this device's clock (\(Timestamp.format(now))); check the publisher's clock and the device's, and build the bundle again"
            )
        }
        if let expiry = manifest.expiresAt, now >= expiry {
            throw BundleError(.expired, "the bundle expired at \(Timestamp.format(expiry)); it is now \(Timestamp.format(now))")
        }
        let source = files["policy.lua"]!
        guard let policyText = String(data: source, encoding: .utf8) else {
            throw BundleError(
                .policyInvalid,
                source.first == 0x1B
                    ? "policy.lua is precompiled Lua bytecode, which is refused; bundle the source text"
                    : "policy.lua is not UTF-8 text")
        }
        let params: [String: PolicyValue]
        let paramsBytes = files["params.json"]!
        if let duplicate = JSONDuplicateKeys.first(in: paramsBytes) {
            throw BundleError(
                .policyInvalid,
                "params.json:\(duplicate.line): the key \"\(duplicate.path)\" is given twice (first at line \(duplicate.firstLine)); "
                    + "which value applies would depend on the decoder, so give each key once and rebuild the bundle")
        }
        do {
            params = try JSONDecoder().decode([String: PolicyValue].self, from: paramsBytes)
        } catch {
            throw BundleError(.policyInvalid, "params.json is not a JSON object of params")
        }
        var copy = PolicyCopy.empty
        if let copyBytes = files[BundleManifest.copyFileName] {
            do { copy = try PolicyCopy.decode(copyBytes) } catch {
                throw BundleError(.policyInvalid, "\(BundleManifest.copyFileName): \(error.message); rebuild the bundle with permit bundle")
            }
        }
        return VerifiedBundle(bundle: self, manifest: manifest, policySource: policyText, params: params, copy: copy, signer: signer)
    }

    /// Every manifest file present with its size and SHA-256, and no other file.
    func checkFiles(against manifest: BundleManifest) throws(BundleError) {
        for name in manifest.files.keys.sorted() {
            let entry = manifest.files[name]!
            guard let bytes = files[name] else {
                throw BundleError(.fileHashMismatch, "\(name) is in the manifest but not in the bundle")
            }
            let hash = PolicyBundle.sha256(bytes)
            guard hash == entry.sha256, bytes.count == entry.size else {
                throw BundleError(
                    .fileHashMismatch,
                    "\(name) has SHA-256 \(hash.prefix(16))… (\(bytes.count) bytes), the manifest says \(entry.sha256.prefix(16))… (\(entry.size) bytes)"
                )
            }
        }
        if let extra = Set(files.keys).subtracting(manifest.files.keys).sorted().first {
            throw BundleError(.fileHashMismatch, "\(extra) is in the bundle but not in the manifest")
        }
    }

    static func sha256(_ data: Data) -> String { Hex.encode(Data(SHA256.hash(data: data))) }
}

/// A bundle that passed `verify`: its manifest, policy text and params can be trusted as far
/// as the trust it was checked with.
public struct VerifiedBundle: Sendable {
    /// The bundle as read.
    public let bundle: PolicyBundle
    /// Its manifest, parsed.
    public let manifest: BundleManifest
    /// The policy's Lua source.
    public let policySource: String
    /// The params the bundle declares (`params.json`).
    public let params: [String: PolicyValue]
    /// The pack's copy (`copy.json`); empty for a bundle without one (all bundles made before
    /// packs had copy).
    public let copy: PolicyCopy
    /// The key that signed it, when keys were checked.
    public let signer: KeyID?

    /// `polite@7`, the name policy errors carry as their file.
    public var chunkName: String { "\(manifest.pack)@\(manifest.version)/policy.lua" }
}
