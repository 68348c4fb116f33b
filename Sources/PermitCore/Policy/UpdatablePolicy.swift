import Foundation

/// A policy that takes new versions of itself while the app runs.
///
/// PermitDelivery's `PolicySource` (signed bundles, hot swap between events, circuit breaker)
/// is the one an app uses. The protocol lives in the core so that code driving a delivered
/// policy without shipping one, such as the scenario player's `policy_update` steps, needs no
/// bundle or crypto code of its own: whoever assembles it passes a `PolicyDelivery` in.
public protocol UpdatablePolicy: Policy {
    /// Installs the update in the file at `url`.
    ///
    /// - Returns: what was installed, in words for logs (`bundle polite version 7`).
    /// - Throws: why the update was refused; the policy serving before keeps serving.
    func installUpdate(contentsOf url: URL) throws -> String

    /// Everything the policy did (installs, refusals, fallbacks), oldest first, in words.
    var updateLog: [String] { get }

    /// Returns once everything the policy queued for its storage is written, so that the
    /// next process finds it (the scenario player calls it when the app's process ends).
    func waitUntilSaved()
}

extension UpdatablePolicy {
    /// A policy that writes nothing in the background has nothing to wait for.
    public func waitUntilSaved() {}
}

/// Makes `UpdatablePolicy`s: how updates are verified and installed, chosen by whoever
/// assembles the program (the `permit` CLI passes PermitDelivery's `BundleDelivery`).
public protocol PolicyDelivery: Sendable {
    /// Reads the trust settings once and returns a maker of updatable policies, one for each
    /// run of the app's process, each serving the policy it is given until an update installs.
    /// A policy keeps what it installed in `storage`, a directory the app keeps between its
    /// launches: one made later on the same directory serves it again, as a relaunched app
    /// does; one made on an empty directory remembers nothing, as after the app is deleted
    /// and installed again.
    ///
    /// - Parameters:
    ///   - trustedKeys: public key files an update must be signed by; none accepts unsigned
    ///     updates, as in development.
    ///   - hostParams: the params the host overrides; an update whose policy does not take
    ///     them is refused.
    ///   - clock: for expiry checks and the times of logged events.
    /// - Throws: when a key file cannot be used, with a message naming it.
    func policies(
        trustedKeys: [URL], hostParams: [String: PolicyValue], clock: any PermitClock
    ) throws -> @Sendable (_ builtIn: any Policy, _ storage: URL) -> any UpdatablePolicy
}
