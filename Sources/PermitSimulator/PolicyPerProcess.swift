import PermitCore

/// Where each process of a `SimulatedApp` gets its policy: the one hook through which the
/// simulated app starts, ends and reinstalls what decides.
///
/// A Lua policy fits two ways: a new `LuaPolicy` per process (a cold start's fresh VM, as a
/// scenario runs it), or one VM started over at each process (`LuaPolicy.restart`, as
/// `permit simulate` runs a block of users); a Swift policy may simply be returned each time
/// (`SamePolicy`). A protocol rather than a stored closure: a typed-throws function type held
/// as a value needs the Swift 6.0 runtime (iOS 18), above the floor apps' tests run on.
public protocol PolicyPerProcess: Sendable {
    /// The policy a new process runs. `processSeed` is that process's own random seed (the
    /// simulation draws one per process so that `math.random` differs from one to the next);
    /// a source that needs none ignores it. An error leaves the app without a process, unless
    /// `failedStartPolicy` gives the policy such a process runs.
    func policy(processSeed: UInt64) throws(PolicyError) -> any Policy

    /// What a process runs when `policy(processSeed:)` failed: a policy whose every call fails
    /// (a Lua VM whose main chunk failed to run again), as an app whose policy file failed to
    /// load still runs and decides nothing. `nil` (the default): the app gets no process.
    var failedStartPolicy: (any Policy)? { get }

    /// The process ended (terminated, deleted, or replaced by a cold launch): what the policy
    /// still has to write for the next one is written now. Nothing, by default.
    func processEnded()

    /// The app was deleted and installed again: whatever the policy kept in the app's storage
    /// is gone. Nothing, by default.
    func appReinstalled()
}

extension PolicyPerProcess {
    /// No process without a policy.
    public var failedStartPolicy: (any Policy)? { nil }

    /// Nothing to write.
    public func processEnded() {}

    /// Nothing kept in the app's storage.
    public func appReinstalled() {}
}

/// The same policy in every process: right for a policy that keeps nothing between calls (a
/// Swift policy in a test); a Lua policy's globals would outlive the process with it.
public struct SamePolicy: PolicyPerProcess {
    /// The policy every process runs.
    public let policy: any Policy

    /// Runs `policy` in every process.
    public init(_ policy: any Policy) { self.policy = policy }

    /// `policy`, whatever the seed.
    public func policy(processSeed: UInt64) throws(PolicyError) -> any Policy { policy }
}
