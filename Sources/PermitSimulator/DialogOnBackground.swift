/// What iOS does with the notification-permission dialog on screen when the user leaves the
/// app (Home, the app switcher, the lock button) before answering (docs/platform.md D-02).
///
/// Apple documents none of them, and the public reports disagree. The newest
/// (Baseflow/flutter-permission-handler issue 1423, December 2024) saw the dialog close, the request
/// complete with `granted = false`, and the status stay not determined, so the app could ask
/// again: that is the default, `dismisses`. An older one (Faifly/xDrip issue 228, iOS 14) saw
/// Settings show notifications off afterwards (`denies`). `stays` (the dialog is still there on
/// return, and the answer comes later or never) is selectable too, so a policy can be tested
/// against all three.
public enum DialogOnBackground: String, Sendable, Hashable, CaseIterable {
    /// The dialog closes unanswered: the request completes with `granted = false`, the status
    /// stays `not_determined`, and a later request shows the dialog again.
    case dismisses
    /// The dialog is dismissed and counts as Don't Allow.
    case denies
    /// The dialog stays on screen, unanswered, until the user returns and answers.
    case stays

    /// The reading the newest evidence supports.
    public static let observed = DialogOnBackground.dismisses
}
