import Foundation
import PermitCore

/// Signed policy bundles as a `PolicyDelivery`: each updatable policy is a `PolicySource` that
/// verifies bundles against the trusted keys. The `permit` CLI hands it to the scenario player
/// for `policy_update` steps, so the player itself never links bundle or crypto code.
public struct BundleDelivery: PolicyDelivery {
    /// Bundle delivery; it holds no state of its own.
    public init() {}

    /// Sources that accept any pack (a scenario names no pack), check bundles against
    /// `trustedKeys` and keep their state (the bundle serving, its fallback, the version mark,
    /// the revoked versions, the breaker's evidence) in `storage`, restored at each launch.
    public func policies(
        trustedKeys: [URL], hostParams: [String: PolicyValue], clock: any PermitClock
    ) throws -> @Sendable (_ builtIn: any Policy, _ storage: URL) -> any UpdatablePolicy {
        var keys: [BundlePublicKey] = []
        for url in trustedKeys { keys.append(try BundlePublicKey.read(contentsOf: url)) }
        let configuration = PolicySource.Configuration(
            pack: nil, trust: keys.isEmpty ? .unsignedForDevelopment : .keys(keys), hostParams: hostParams, clock: clock)
        return { builtIn, storage in
            var configuration = configuration
            configuration.directory = storage
            return PolicySource(builtIn: builtIn, configuration: configuration)
        }
    }
}

extension PolicySource: UpdatablePolicy {
    /// Installs the bundle file at `url` (verified first); says which pack and version now serve.
    public func installUpdate(contentsOf url: URL) throws -> String {
        let manifest = try install(contentsOf: url)
        return "bundle \(manifest.pack) version \(manifest.version)"
    }

    /// The source's delivery events, as sentences for a scenario report.
    public var updateLog: [String] { status.events.map(\.description) }
}
