// A policy written in Swift, and a policy that wraps another, as docs/reference/host.md ("A
// policy in Swift") shows them: the region between the `snippet` markers is that page's block,
// checked by DocumentationTests. Built with the example so the page's code cannot stop compiling.
import PermitCore

// snippet: begin
/// Asks at the second launch, with nothing shown before: a fixed policy without a script.
let secondLaunch = ClosurePolicy(name: "second-launch") { context in
    guard context.event == .appLaunch, context.status == .notDetermined, context.history.launches >= 2 else { return nil }
    return Decision(.requestPermission(options: [.alert, .sound, .badge]), reason: "second launch")
}

/// Counts the decisions of the policy it holds. `Policy` has no defaults: a wrapper answers
/// each requirement, and passes the policy's facts on in one line (`declaration`).
final class CountingPolicy: Policy {
    let inner: any Policy
    let decisions = Locked(0)

    init(_ inner: any Policy) { self.inner = inner }

    var declaration: PolicyDeclaration { inner.declaration }
    func answer(_ context: PolicyContext) -> PolicyAnswer {
        decisions.withLock { $0 += 1 }
        return inner.answer(context)
    }
    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        try inner.planReminders(context)
    }
    func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
    func takeTrace() -> String { inner.takeTrace() }
    func eventHandled(errors: [PolicyError]) { inner.eventHandled(errors: errors) }
}
// snippet: end
