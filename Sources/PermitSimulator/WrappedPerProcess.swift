import PermitCore

/// Another source's policies, each wrapped as it starts: how a tool observes every call a
/// simulated app's processes make (the benchmarks record them; a test reads their contexts)
/// without writing the source's lifecycle again. Ends and reinstalls go to `inner` unchanged.
public struct WrappedPerProcess: PolicyPerProcess {
    /// Where the policies come from.
    public let inner: any PolicyPerProcess
    /// What each policy is wrapped in (the failed-start policy too).
    public let wrap: @Sendable (any Policy) -> any Policy

    /// Each policy of `inner`, passed through `wrap`.
    public init(_ inner: any PolicyPerProcess, wrap: @escaping @Sendable (any Policy) -> any Policy) {
        self.inner = inner
        self.wrap = wrap
    }

    /// `inner`'s policy for the process, wrapped.
    public func policy(processSeed: UInt64) throws(PolicyError) -> any Policy {
        wrap(try inner.policy(processSeed: processSeed))
    }

    /// `inner`'s fallback, wrapped.
    public var failedStartPolicy: (any Policy)? { inner.failedStartPolicy.map(wrap) }

    /// Passed on to `inner`.
    public func processEnded() { inner.processEnded() }

    /// Passed on to `inner`.
    public func appReinstalled() { inner.appReinstalled() }
}
