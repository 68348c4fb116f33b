/// A policy that forwards every call to another and keeps the context of each: benchmarks replay
/// those contexts through a minimal host to measure what the same Lua work costs without Permit.
public struct RecordingPolicy: Policy {
    /// Which function a recorded call ran.
    public enum Function: Sendable { case decide, planReminders }

    private let inner: any Policy
    private let recorded = Locked<[(function: Function, context: PolicyContext)]>([])

    /// Records the calls made to `inner`.
    public init(inner: any Policy) { self.inner = inner }

    /// The calls so far, in order.
    public var calls: [(function: Function, context: PolicyContext)] { recorded.current }

    public var name: String { inner.name }
    public var plansReminders: Bool { inner.plansReminders }
    public var durableKeys: DurableKeys { inner.durableKeys }
    public var experiments: [Experiment] { inner.experiments }
    public var version: Int64? { inner.version }

    public func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? {
        recorded.withLock { $0.append((.decide, context)) }
        return try inner.decide(context)
    }

    public func answer(_ context: PolicyContext) -> PolicyAnswer {
        recorded.withLock { $0.append((.decide, context)) }
        return inner.answer(context)
    }

    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        recorded.withLock { $0.append((.planReminders, context)) }
        return try inner.planReminders(context)
    }

    public func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
    public func takeTrace() -> String { inner.takeTrace() }
    public func eventHandled(errors: [PolicyError]) { inner.eventHandled(errors: errors) }
}
