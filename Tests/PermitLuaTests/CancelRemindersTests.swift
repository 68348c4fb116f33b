import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `cancel_reminders` in a decision (docs/reference/policy.md#decision-fields), read alike by the
/// warm path and the general reader.
@Suite struct CancelRemindersTests {
    func policy(_ decision: String) throws -> LuaPolicy {
        try LuaPolicy(source: "return { name = 'c', decide = function(ctx) return \(decision) end }", chunkName: "c.lua")
    }

    func context() -> PolicyContext {
        let version = OSVersion(major: 16)
        return PolicyContext(
            event: .appForeground, status: .denied, previousStatus: .authorized,
            settings: .typical(for: .denied, on: version), platform: Platform(version: version), history: Ledger(),
            now: 1_767_600_000)
    }

    @Test(arguments: [
        ("{ action = 'none', cancel_reminders = true }", true),
        ("{ action = 'none', cancel_reminders = false }", false),
        ("{ action = 'none' }", false),
        ("{ action = 'request_permission', cancel_reminders = true }", true),
    ])
    func bothPathsReadTheFlag(decision: String, expected: Bool) throws {
        let loaded = try policy(decision)
        #expect(try loaded.decide(context())?.cancelReminders == expected)
        #expect(try loaded.generalDecide(context())?.cancelReminders == expected)
    }

    @Test func anythingButABooleanIsAnErrorNamingTheField() throws {
        let loaded = try policy("{ action = 'none', cancel_reminders = 'yes' }")
        #expect(throws: PolicyError.self) { try loaded.decide(context()) }
        do {
            _ = try loaded.decide(context())
        } catch {
            #expect(error.field == "decision.cancel_reminders")
            #expect(error.description.contains("expected true or false"))
        }
    }
}
