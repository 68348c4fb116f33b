import Foundation
import PermitCore

/// What happens to the simulated iPhone outside Permit's own calls: another SDK asking, the
/// user leaving with the dialog up, the device changing time zone, the user tapping the app's
/// link in Settings.
extension SimulatedDevice {
    /// What another SDK's (or the app's own) `requestAuthorization` call outside Permit did.
    public enum ExternalRequestResult: Sendable, Hashable {
        /// The dialog appeared and the user answered it.
        case dialogAnswered(granted: Bool)
        /// No dialog could show (already answered, the app not in the foreground, Permit's
        /// dialog up): nothing changed.
        case noDialog
    }

    /// Another SDK asks for alert, sound and badge while the app is open (docs/platform.md X-01).
    /// When iOS can show the dialog the user answers it at once with `allow`; Permit is not told
    /// and learns the new status at its next read. On iOS 8–9 that dialog leaves Permit's
    /// asked-flag unset, so a denial there reads `not_determined` until Permit's own request
    /// (answered at once, without a dialog) sets it.
    @discardableResult
    public func externalRequest(allow: Bool) -> ExternalRequestResult {
        let now = clock.now()
        return state.withLock { state in
            expireEphemeral(&state, now: now)
            let open = state.dialogOnScreen == nil && state.inForeground && !state.dialogAnswered
            let asksAgain =
                state.authorization == .notDetermined || state.authorization == .provisional
                || state.authorization == .ephemeral
            guard open, asksAgain else { return .noDialog }
            state.legacyTypesRequested = .all
            showDialog(&state, options: [.alert, .sound, .badge])
            answer(&state, allow: allow)
            return .dialogAnswered(granted: allow)
        }
    }

    /// What leaving the app did to the dialog on screen.
    public enum BackgroundResult: Sendable, Hashable {
        /// No dialog was on screen.
        case noDialog
        /// The dialog was dismissed and counted as Don't Allow (`DialogOnBackground.denies`):
        /// the request's answer, `granted = false`, reaches the app.
        case dialogDenied
        /// The dialog closed unanswered (`DialogOnBackground.dismisses`): the request's answer,
        /// `granted = false`, reaches the app, the status stays `not_determined`, and the app
        /// may ask again.
        case dialogDismissed
        /// The dialog stays, unanswered, for the user's return (`DialogOnBackground.stays`).
        case dialogStays
    }

    /// The app leaves the foreground (Home, the app switcher, the lock button).
    @discardableResult
    public func moveToBackground() -> BackgroundResult {
        state.withLock { state in
            state.inForeground = false
            guard state.dialogOnScreen != nil else { return .noDialog }
            switch dialogOnBackground {
            case .denies:
                answer(&state, allow: false)
                return .dialogDenied
            case .dismisses:
                state.dialogOnScreen = nil
                state.criticalAlertsDialog = false
                return .dialogDismissed
            case .stays:
                return .dialogStays
            }
        }
    }

    /// The device's time zone.
    public var timeZone: TimeZone { state.withLock { $0.timeZone } }

    /// The device changes time zone (the user travels, or sets it). Pending notifications keep
    /// their wall-clock time, as the Apple adapter schedules them (date components without a
    /// time zone: floating local time), so each moves to the same local time in the new zone
    /// (docs/platform.md Z-01).
    public func changeTimeZone(to zone: TimeZone) {
        _ = pending
        state.withLock { state in
            let old = state.timeZone
            state.timeZone = zone
            for index in state.pending.indices {
                let reminder = state.pending[index]
                state.pending[index] = reminder.firing(
                    at: AppleMapping.floatingFireDate(reminder.fireDate, scheduledIn: old, firingIn: zone))
            }
        }
    }

    /// Whether Settings shows the link to the app's own notification settings.
    public var showsAppSettingsLink: Bool { state.withLock { $0.showsAppSettingsLink } }

    /// The user taps the link to the app's notification settings in Settings › Notifications:
    /// the app opens (in the foreground), and the host sends `notification_settings_opened`.
    public func openAppSettingsLink() throws(SimulatedDeviceError) {
        try state.withLock { (state: inout State) throws(SimulatedDeviceError) in
            guard state.showsAppSettingsLink else { throw .noAppSettingsLink }
            state.inForeground = true
        }
    }
}
