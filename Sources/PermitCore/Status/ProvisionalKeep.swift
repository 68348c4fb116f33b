/// What the user chooses after tapping "Keep" on a quiet (provisional) notification in
/// Notification Center (docs/platform.md P-02).
///
/// Apple's "Asking permission to use notifications": Keep offers "Deliver Immediately" and, when
/// the user has Scheduled Summary on, "Deliver in Scheduled Summary". Either authorizes the app,
/// without alerts, sounds or badges: its notifications still arrive quietly, now for good.
public enum ProvisionalKeep: String, Sendable, Hashable, CaseIterable {
    /// "Deliver Immediately": authorized, delivered to Notification Center only.
    case deliverImmediately = "deliver_immediately"
    /// "Deliver in Scheduled Summary": authorized, held for the user's summary (offered only
    /// with Scheduled Summary on, iOS 15+).
    case deliverInScheduledSummary = "deliver_in_scheduled_summary"
}
