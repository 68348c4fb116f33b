import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// A decision's `notify` (docs/reference/policy.md#notify): read by the general reader
/// with a reminder's rules (the warm path hands such a decision over), refused with its field.
@Suite struct NotifyDecisionTests {
    func policy(_ decision: String) throws -> LuaPolicy {
        try LuaPolicy(source: "return { name = 'n', decide = function(ctx) return \(decision) end }", chunkName: "n.lua")
    }

    func context() -> PolicyContext {
        let version = OSVersion(major: 16)
        return PolicyContext(
            event: .backgroundRefresh, status: .authorized, previousStatus: .authorized,
            settings: .typical(for: .authorized, on: version), platform: Platform(version: version), history: Ledger(),
            now: 1_767_600_000)
    }

    @Test func bothPathsReadEveryField() throws {
        let loaded = try policy(
            """
            { action = 'none', notify = { title = { en = 'Check settings' }, body = 'Alerts are off', id = 'unsafe',
              action = 'open', sound = false, badge = 1, interruption_level = 'time_sensitive' } }
            """)
        let expected = NotificationRequest(
            title: .translations(["en": "Check settings"]), body: .plain("Alerts are off"), action: "open", sound: false,
            badge: 1, id: "unsafe", interruptionLevel: .timeSensitive)
        #expect(try loaded.decide(context())?.notify == expected)
        #expect(try loaded.generalDecide(context())?.notify == expected)
        #expect(try loaded.decide(context())?.action == Decision.Action.none)
    }

    @Test func aDecisionWithoutNotifyHasNone() throws {
        let loaded = try policy("{ action = 'none' }")
        #expect(try loaded.decide(context())?.notify == nil)
    }

    @Test(arguments: [
        ("'now'", "decision.notify", "expected a notification table"),
        ("{ title = 'x' }", "decision.notify.body", "missing; a notification needs a body"),
        ("{ body = string.rep('x', 5000) }", "decision.notify.body", "longer than"),
        ("{ body = 'x', hour = 9 }", "decision.notify.hour", "not a field of a notification"),
        ("{ body = 'x', interruption_level = 'loud' }", "decision.notify.interruption_level", "expected passive, active"),
        ("{ body = 'x', badge = -1 }", "decision.notify.badge", "expected a whole number"),
        ("{ body = 'x', sound = 1 }", "decision.notify.sound", "expected true or false"),
    ])
    func badInputIsAnErrorNamingTheField(notify: String, field: String, words: String) throws {
        let loaded = try policy("{ action = 'none', notify = \(notify) }")
        for read in [loaded.decide, loaded.generalDecide] {
            do {
                let decision = try read(context())
                Issue.record("expected a refusal, got \(String(describing: decision))")
            } catch {
                #expect(error.field == field)
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
    }

    /// A reminder reads its content by the same function: its errors name the reminder.
    @Test func aReminderStillNamesItsOwnPath() throws {
        let loaded = try LuaPolicy(
            source: "return { name = 'r', decide = function() end, plan_reminders = function() return { { hour = 9 } } end }",
            chunkName: "r.lua")
        do {
            _ = try loaded.generalPlanReminders(context())
            Issue.record("expected a refusal")
        } catch {
            #expect(error.field == "reminders[1].body")
            #expect(error.description.contains("missing; a reminder needs a body"))
        }
    }
}
