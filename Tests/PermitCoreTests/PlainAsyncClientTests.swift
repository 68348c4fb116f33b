import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// A host's own client, written with plain `async` methods, conforms and drives the engine.
final class PlainAsyncClient: NotificationCenterClient {
    let device: SimulatedDevice
    init(_ device: SimulatedDevice) { self.device = device }
    func readSettings() async -> NotificationSnapshot { await device.readSettings() }
    func requestAuthorization(options: [AuthorizationOption]) async -> AuthorizationRequestResult {
        await device.requestAuthorization(options: options)
    }
    func registerLegacy(types: LegacyNotificationTypes) async -> AuthorizationRequestResult {
        await device.registerLegacy(types: types)
    }
    func pendingReminders() async -> [ScheduledReminder] { await device.pendingReminders() }
    func schedule(_ reminders: [ScheduledReminder]) async { await device.schedule(reminders) }
    func post(_ notification: ScheduledReminder) async { await device.post(notification) }
    func removePendingReminders(ids: [String]) async { await device.removePendingReminders(ids: ids) }
}

@Suite struct PlainAsyncClientTests {
    @Test func aPlainAsyncClientWorks() async throws {
        let platform = Platform(version: OSVersion(major: 16, minor: 4))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_772_900_000))
        let device = try SimulatedDevice(platform: platform, clock: clock)
        let engine = PermissionEngine(
            policy: ClosurePolicy { _ in .init(.requestPermission(options: [.alert])) }, client: PlainAsyncClient(device),
            platform: platform, clock: clock, configuration: EngineConfiguration(foregroundRechecks: []))
        let outcome = await engine.handle(.appLaunch)
        #expect(outcome.dialogShown)
    }
}
