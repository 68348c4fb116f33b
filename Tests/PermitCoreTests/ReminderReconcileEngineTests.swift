import Foundation
import Testing

@testable import PermitCore

/// The engine carries out the reconciliation and `cancel_reminders` on the device
/// (docs/reference/policy.md#reminder-reconcile).
@Suite struct ReminderReconcileEngineTests {
    /// A policy whose wanted reminders and decision the test changes between events.
    final class Script: @unchecked Sendable {
        let wanted = Locked<[ReminderRequest]>([])
        let cancel = Locked(false)

        var policy: ClosurePolicy {
            ClosurePolicy(
                decide: { _ in
                    self.cancel.current
                        ? {
                            var decision = Decision(.none); decision.cancelReminders = true; return decision
                        }() : nil
                },
                planReminders: { _ in self.wanted.current })
        }
    }

    @Test func theDeviceEndsUpWithExactlyWhatThePolicyWants() async {
        let script = Script()
        script.wanted.withLock {
            $0 = [ReminderRequest(day: 1, hour: 9, body: "a", id: "a"), ReminderRequest(day: 2, hour: 9, body: "b", id: "b")]
        }
        let world = World(authorization: .authorized, policy: script.policy)
        world.device.add([ScheduledReminder(id: "app.own", fireDate: start.addingTimeInterval(86_400 * 5), body: "own")])

        let first = await world.engine.handle(.appLaunch)
        #expect(first.remindersScheduled.map(\.id) == ["permit.a", "permit.b"])

        script.wanted.withLock {
            $0 = [ReminderRequest(day: 1, hour: 9, body: "a, reworded", id: "a"), ReminderRequest(day: 3, hour: 9, body: "c", id: "c")]
        }
        let second = await world.engine.handle(.appForeground)
        #expect(second.remindersScheduled.map(\.id) == ["permit.a", "permit.c"])
        #expect(second.remindersRemoved == ["permit.b"])
        #expect(world.device.pending.map(\.id).sorted() == ["app.own", "permit.a", "permit.c"])
        #expect(world.device.pending.first { $0.id == "permit.a" }?.body == "a, reworded")

        let third = await world.engine.handle(.appForeground)  // nothing changed: nothing touched
        #expect(third.remindersScheduled.isEmpty && third.remindersRemoved.isEmpty)
    }

    @Test func cancelRemindersClearsThePoliciesRemindersAndPlansNone() async {
        let script = Script()
        script.wanted.withLock { $0 = [ReminderRequest(day: 1, hour: 9, body: "a", id: "a")] }
        let world = World(authorization: .authorized, policy: script.policy)
        world.device.add([ScheduledReminder(id: "app.own", fireDate: start.addingTimeInterval(86_400 * 5), body: "own")])
        _ = await world.engine.handle(.appLaunch)
        script.cancel.withLock { $0 = true }
        let cancelled = await world.engine.handle(.appForeground)
        #expect(cancelled.remindersRemoved == ["permit.a"])
        #expect(cancelled.remindersScheduled.isEmpty)  // plan_reminders does not run after a cancel
        #expect(world.device.pending.map(\.id) == ["app.own"])
    }
}
