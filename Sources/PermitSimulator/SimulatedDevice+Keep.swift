import Foundation
import PermitCore

/// The user's choice on a quiet (provisional) notification in Notification Center.
extension SimulatedDevice {
    /// The user taps "Keep" on a quiet notification and picks how it is delivered
    /// (docs/platform.md P-02). Apple: either choice authorizes the app "but it doesn't give your
    /// app permission to show alerts, play sounds, or badge the app icon", so iOS then reports
    /// `authorized` with alert, sound, badge and the lock screen disabled and Notification
    /// Center enabled; "Deliver in Scheduled Summary" (offered only with Scheduled Summary on)
    /// also reads `scheduled_delivery` enabled. Time-sensitive delivery follows the entitlement,
    /// as for any authorized app. The app is not told: it reads the change at its next read.
    public func keepProvisional(_ choice: ProvisionalKeep) throws(SimulatedDeviceError) {
        let now = clock.now()
        try state.withLock { (state: inout State) throws(SimulatedDeviceError) in
            expireEphemeral(&state, now: now)
            guard state.authorization == .provisional else {
                throw .invalidSettingsChange(
                    "Keep is offered on a quiet (provisional) notification; the app is \(state.authorization), not provisional")
            }
            if choice == .deliverInScheduledSummary, !scheduledSummary {
                throw .invalidSettingsChange(
                    "Keep offers \"Deliver in Scheduled Summary\" only with Scheduled Summary on "
                        + "(scenario device key scheduled_summary: true, iOS 15+)")
            }
            var settings = typical(.authorized)
            for setting in [NotificationSettings.Setting.alert, .sound, .badge, .lockScreen] { settings[setting] = .disabled }
            settings.notificationCenter = .enabled
            if platform.version >= NotificationSettings.Setting.scheduledDelivery.introducedIn {
                settings.scheduledDelivery = choice == .deliverInScheduledSummary ? .enabled : .disabled
            }
            settings.criticalAlert = state.settings.criticalAlert
            state.authorization = .authorized
            state.settings = settings
            state.dialogAnswered = true
            state.staleReadsLeft = state.staleReadsAfterChange
        }
    }
}
