import Foundation

/// What the engine did with one event: what the app should present, and why.
public struct Outcome: Sendable, Hashable {
    /// The event handled.
    public var event: AppEvent
    /// Unix seconds at which the event was handled.
    public var time: Int64
    /// The status the app knew before the event.
    public var statusBefore: PermissionStatus
    /// The status after the event: a re-read, or an answer that came at once.
    public var statusAfter: PermissionStatus
    /// What the policy returned, before the guardrails (`nil` when it returned nothing or failed).
    public var proposed: Decision?
    /// What the app should do: after the guardrails, with every text localised.
    public var decision: Decision
    /// The guardrails that changed the policy's decision, each with why.
    public var warnings: [GuardrailWarning]
    /// Policy errors of this event (the decision, the reminders). The decision is `none`
    /// when `decide` failed.
    public var errors: [PolicyError]
    /// Whether the system dialog appeared for a `request_permission`.
    public var dialogShown: Bool
    /// When a request showed no dialog, the answer the system gave at once.
    public var immediateAnswer: Bool?
    /// Reminders handed to the system for this event: new ones, and changed ones replacing
    /// the pending notification with their identifier.
    public var remindersScheduled: [ScheduledReminder]
    /// Identifiers of the policy's pending reminders removed for this event: no longer in
    /// what `plan_reminders` returned, or all of them for `cancel_reminders`.
    public var remindersRemoved: [String] = []
    /// Notifications posted for this event (the decisions' `notify`), delivered at once, as
    /// handed to the system: texts localised, none while the alert setting hides content.
    public var notificationsPosted: [ScheduledReminder] = []
    /// Set when the ledger could not be saved; it is kept in memory and saved with the next event.
    public var storageError: String?
    /// What the policy printed (`print`, `permit.log`) while handling the event.
    public var trace: String
    /// When a request was answered at once without a dialog, the policy's reaction to that
    /// answer (`system_prompt_answered`); empty otherwise. The app presents its decision too.
    public var followUps: [Outcome] = []
    /// The host should call `UIApplication.registerForRemoteNotifications()` now. By default
    /// (the decision says no `remote_registration`): at every launch, whatever the status, as
    /// Apple asks apps to register at every launch (the device token can change, and
    /// registering needs no permission), and whenever the status becomes granted (from the
    /// dialog, an answer iOS gave at once, or a change in Settings the engine read)
    /// (docs/platform.md N-02). A grant found only by the delayed foreground re-check has no
    /// outcome: it arrives on `PermissionEngine.statusStream`. The policy's
    /// `remote_registration` overrides the default for its event.
    public var registerForRemoteNotifications = false
    /// The host should call `UIApplication.unregisterForRemoteNotifications()` now: the
    /// policy's decision said `remote_registration = "unregister"` (an app whose own switch
    /// turns its pushes off). Never set by default.
    public var unregisterForRemoteNotifications = false
    /// The install's arm of each experiment the policy declares, for the app's analytics.
    public var arms: [String: String] = [:]
    /// The name of the policy that decided.
    public var policyName = ""
    /// Its version (a bundle's), `nil` for a policy from a file or built in.
    public var policyVersion: Int64?

    /// The decision the app should have on screen after the event: the follow-up's when there
    /// is one, else the event's own.
    public var finalDecision: Decision { followUps.last?.decision ?? decision }

    /// The row the app puts on screen after the event (a decision's `row`): the last one the
    /// event's decision and its follow-ups carry, or `nil` when none changes the row. Walked,
    /// not collected: a simulation asks on every event.
    public var finalRow: Decision.Action? {
        var row = decision.row
        for followUp in followUps where followUp.decision.row != nil { row = followUp.decision.row }
        return row
    }

    /// Whether a host registers for remote notifications by default after an event that moved
    /// the status from `before` to `after`: at every launch, and whenever it becomes granted.
    public static func registersForRemoteNotifications(
        event: AppEvent, before: PermissionStatus, after: PermissionStatus
    ) -> Bool {
        if case .appLaunch = event { return true }
        return after.isGranted && !before.isGranted
    }

    /// The first policy error, if any.
    public var error: PolicyError? { errors.first }
}
