import Foundation
import PermitCore

/// What the simulated app's calls report: what happened on the device and in the app, as
/// facts, so that each player words them its own way (the scenario player's notes) or counts
/// them (the simulation's tallies).
extension SimulatedApp {
    /// What a launch did.
    public struct Launch: Sendable {
        /// A new process started (false: the running one had handled no event, and is no
        /// different from a new one, so it was kept).
        public var newProcess: Bool
        /// The new engine's fresh ledger took back the durable part the Keychain kept.
        public var restoredDurablePart: Bool
        /// The app's own UI that was on screen and went with the old process, unanswered.
        public var screenLost: Screen?
    }

    /// A `significant_time_change` that iOS queued while the app was suspended, delivered when
    /// it came back to the foreground.
    public struct DeliveredTimeChange: Sendable {
        /// The zone the device is in now (several changes coalesce into one).
        public var zone: TimeZone
        /// What the engine made of it.
        public var outcome: Outcome
    }

    /// What coming to the foreground did.
    public struct Foreground: Sendable {
        /// The queued time change, delivered first, if one was waiting.
        public var timeChange: DeliveredTimeChange?
        /// The outcome of the event the app sent on coming back.
        public var outcome: Outcome
    }

    /// What leaving the app did to the system dialog on screen.
    public enum DialogLeft: Sendable, Hashable {
        /// No dialog was on screen.
        case none
        /// The dialog stays, unanswered, for the user's return.
        case stays
        /// The dialog closed; the request completed (`DialogOnBackground.denies` or
        /// `.dismisses`). `authorization` is the device's afterwards: `denied` (counted as Don't
        /// Allow), `authorized` (the critical-alerts dialog, S-02), or `not_determined` (closed
        /// unanswered).
        case closed(authorization: PermissionStatus)
    }

    /// What leaving the app (Home, the app switcher, the lock button) did.
    public struct Background: Sendable {
        /// What became of the system dialog.
        public var dialog: DialogLeft
        /// The outcome of `app_background`.
        public var outcome: Outcome
        /// When the dialog closed: the outcome of the request's answer the app then heard
        /// (`system_prompt_answered`).
        public var answer: Outcome?
    }

    /// What a change of the device's time zone did to the app.
    public enum TimeZoneChange: Sendable {
        /// The app is in the foreground: it heard `significant_time_change` at once.
        case heard(Outcome)
        /// The app is suspended: iOS queues the notification until it returns (Z-02).
        case queued
        /// No process runs: the next launch reads the zone itself.
        case notRunning
    }

    /// What a reinstall did.
    public struct Reinstall: Sendable, Hashable {
        /// Whether the system kept the old notification answer.
        public var systemRemembers: Bool
        /// Whether the Keychain (the ledger's durable part) survived.
        public var keychainSurvives: Bool
    }
}
