import PermitCore

/// A policy that forwards every call to another and keeps the context of each: benchmarks replay
/// those contexts through a minimal host to measure what the same Lua work costs without Permit.
public struct RecordingPolicy: Policy {
    /// Which function a recorded call ran.
    public enum Function: Sendable { case decide, planReminders }

    /// Where the calls go, in order: one log may serve the policies of many processes.
    public final class Log: Sendable {
        private let recorded = Locked<[(function: Function, context: PolicyContext)]>([])

        /// An empty log.
        public init() {}

        /// The calls so far, in order.
        public var calls: [(function: Function, context: PolicyContext)] { recorded.current }

        func append(_ function: Function, _ context: PolicyContext) {
            recorded.withLock { $0.append((function, context)) }
        }
    }

    private let inner: any Policy
    /// Where this recorder's calls go.
    public let log: Log

    /// Records the calls made to `inner` in `log` (a log of its own by default).
    public init(inner: any Policy, log: Log = Log()) {
        self.inner = inner
        self.log = log
    }

    /// The calls in the log so far, in order.
    public var calls: [(function: Function, context: PolicyContext)] { log.calls }

    /// What the recorded policy says about itself.
    public var declaration: PolicyDeclaration { inner.declaration }

    /// Records the call, then answers as the recorded policy.
    public func answer(_ context: PolicyContext) -> PolicyAnswer {
        log.append(.decide, context)
        return inner.answer(context)
    }

    /// Records the call, then plans as the recorded policy.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        log.append(.planReminders, context)
        return try inner.planReminders(context)
    }

    /// The recorded policy's check of host params.
    public func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
    /// What the recorded policy printed.
    public func takeTrace() -> String { inner.takeTrace() }
    /// Passes the event's errors on to the recorded policy.
    public func eventHandled(errors: [PolicyError]) { inner.eventHandled(errors: errors) }
}
