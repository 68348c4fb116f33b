import Foundation
import PermitCore
import PermitTestSupport
import Testing

@testable import PermitDelivery

/// A policy source passes on every fact and call of the policy it serves. The compiler holds
/// that it answers each `Policy` requirement (none has a default); this holds that each answer
/// is the served policy's, and each call reaches it.
@Suite struct WrapperForwardingTests {
    @Test func policySourcePassesOnEveryFactAndCall() {
        let probe = ProbePolicy()
        let source = PolicySource(
            builtIn: probe, configuration: PolicySource.Configuration(pack: "demo", trust: .keys([])))
        // A bundle source reports the version of the bundle serving: none for the built-in policy.
        let differences = probe.differences(through: source, version: .some(nil))
        #expect(differences.isEmpty, "PolicySource does not pass on \(differences)")
    }

    /// The probe finds a wrapper that answers a fact of its own.
    @Test func aWrapperThatDropsAFactIsFound() {
        struct Renaming: Policy {
            let inner: any Policy
            var declaration: PolicyDeclaration { PolicyDeclaration(name: inner.name) }
            func answer(_ context: PolicyContext) -> PolicyAnswer { inner.answer(context) }
            func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
                try inner.planReminders(context)
            }
            func validate(params: [String: PolicyValue]) throws(PolicyError) { try inner.validate(params: params) }
            func takeTrace() -> String { inner.takeTrace() }
            func eventHandled(errors: [PolicyError]) {}
        }
        let probe = ProbePolicy()
        let differences = probe.differences(through: Renaming(inner: probe))
        #expect(differences.count == 6, "\(differences)")
        #expect(differences.contains("eventHandled"))
    }
}
