#if !canImport(UIKit)
import Foundation
import PermitCore
import PermitSimulator

/// A stand-in, off Apple platforms, for PermitCore's iOS-only `UserNotificationCenterClient`,
/// with the same initializer: `AppPermissions` (the README's code) then builds here unchanged.
///
/// Behind it is a simulated iOS 16 device. The real client calls `onAnswer` when the user
/// taps the dialog; here `userTaps(allow:)` plays that tap.
final class UserNotificationCenterClient: NotificationCenterClient {
    private let device: SimulatedDevice
    private let onAnswer: @Sendable (Bool) -> Void

    init(onAnswer: @escaping @Sendable (Bool) -> Void) {
        let platform = Platform(version: OSVersion(major: 16))
        // A fresh simulated device cannot fail to build; a failure here is a bug in Permit.
        device = try! SimulatedDevice(platform: platform, clock: SystemClock())
        self.onAnswer = onAnswer
        Self.last.withLock { $0 = self }
    }

    /// The client most recently made, for the example to tap its dialog.
    static let last = Locked<UserNotificationCenterClient?>(nil)

    /// The user answers the dialog on screen; the answer goes where the real client sends it.
    func userTaps(allow: Bool) throws {
        onAnswer(try device.answerDialog(allow: allow))
    }

    nonisolated(nonsending) func readSettings() async -> NotificationSnapshot { await device.readSettings() }

    nonisolated(nonsending) func requestAuthorization(options: [AuthorizationOption]) async -> AuthorizationRequestResult {
        await device.requestAuthorization(options: options)
    }

    nonisolated(nonsending) func registerLegacy(types: LegacyNotificationTypes) async -> AuthorizationRequestResult {
        await device.registerLegacy(types: types)
    }

    nonisolated(nonsending) func pendingReminders() async -> [ScheduledReminder] { await device.pendingReminders() }

    nonisolated(nonsending) func schedule(_ reminders: [ScheduledReminder]) async { await device.schedule(reminders) }

    nonisolated(nonsending) func post(_ notification: ScheduledReminder) async { await device.post(notification) }

    nonisolated(nonsending) func removePendingReminders(ids: [String]) async { await device.removePendingReminders(ids: ids) }
}
#endif
