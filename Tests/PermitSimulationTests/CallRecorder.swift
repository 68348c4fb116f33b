import PermitCore

/// A policy that passes every call on to another and keeps the context of each, in one log
/// that many processes' recorders share: the tests' window on what the simulation asks.
struct CallRecorder: Policy {
    /// Which function a recorded call ran.
    enum Function: Sendable { case decide, planReminders }

    /// The calls, in the order they were made.
    typealias Log = Locked<[(function: Function, context: PolicyContext)]>

    let inner: any Policy
    let log: Log

    init(inner: any Policy, log: Log = Log([])) {
        self.inner = inner
        self.log = log
    }

    var declaration: PolicyDeclaration { inner.declaration }

    func answer(_ context: PolicyContext) -> PolicyAnswer {
        log.withLock { $0.append((.decide, context)) }
        return inner.answer(context)
    }

    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        log.withLock { $0.append((.planReminders, context)) }
        return try inner.planReminders(context)
    }

    func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
    func takeTrace() -> String { inner.takeTrace() }
    func eventHandled(errors: [PolicyError]) { inner.eventHandled(errors: errors) }
}
