import PermitCore

/// Why a bundle is not genuine, or not installable. `description` says exactly why.
public struct BundleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which check refused the bundle: hosts log it, tests assert on it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Not a Permit bundle, or not in its exact canonical form (any byte changed outside
        /// the signed parts lands here).
        case malformed
        /// Trusted keys are configured and the bundle carries no signature.
        case unsigned
        /// The signature names a key that is not trusted.
        case unknownKeyID = "unknown_key_id"
        /// The signature does not match the manifest.
        case badSignature = "bad_signature"
        /// A file is missing, extra, or its bytes do not have the manifest's SHA-256.
        case fileHashMismatch = "file_hash_mismatch"
        /// The manifest's expiry has passed.
        case expired
        /// The bundle needs a newer engine than this one.
        case engineTooOld = "engine_too_old"
        /// The host expects another pack.
        case wrongPack = "wrong_pack"
        /// The version is not newer than the one installed (or ever installed).
        case notNewer = "not_newer"
        /// The circuit breaker removed this version; it is never installed again.
        case revoked
        /// The policy does not load, or fails `check`, in the sandbox.
        case policyInvalid = "policy_invalid"
        /// No trusted keys are configured, so nothing can be verified.
        case noTrustedKeys = "no_trusted_keys"
        /// The manifest's `created_at` is further ahead of the device's clock than clock skew
        /// explains (`PolicyBundle.clockSkewTolerance`).
        case createdInFuture = "created_in_future"
        /// The version is below the app's pinned `minimumVersion`.
        case belowMinimumVersion = "below_minimum_version"
    }

    /// Which check refused the bundle.
    public var kind: Kind
    /// Why, with the values that differ.
    public var message: String
    /// The load error, for `policyInvalid`.
    public var policyError: PolicyError?

    /// A refusal of `kind`; `policyError` for a policy that does not load.
    public init(_ kind: Kind, _ message: String, policyError: PolicyError? = nil) {
        self.kind = kind
        self.message = message
        self.policyError = policyError
    }

    /// The kind's label and the message.
    public var description: String {
        let label: String
        switch kind {
        case .malformed: label = "malformed bundle"
        case .unsigned: label = "unsigned"
        case .unknownKeyID: label = "unknown key id"
        case .badSignature: label = "bad signature"
        case .fileHashMismatch: label = "file hash mismatch"
        case .expired: label = "expired"
        case .engineTooOld: label = "too new an engine needed"
        case .wrongPack: label = "wrong pack"
        case .notNewer: label = "not newer"
        case .revoked: label = "revoked"
        case .policyInvalid: label = "policy does not load"
        case .noTrustedKeys: label = "no trusted keys"
        case .createdInFuture: label = "created in the future"
        case .belowMinimumVersion: label = "below the minimum version"
        }
        return "\(label): \(message)"
    }
}
