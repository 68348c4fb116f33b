/// What iOS does with the notification-permission dialog on screen when the user leaves the
/// app (Home, the app switcher, the lock button) before answering (docs/platform.md D-02).
///
/// Apple documents neither. The one public report found (Faifly/xDrip issue 228, iOS 14) saw
/// the dialog disappear and Settings show notifications off: the request completes as
/// "Don't Allow". That is the default; `stays` (the dialog is still there on return, and the
/// answer comes later or never) is selectable, so a policy can be tested against both.
public enum DialogOnBackground: String, Sendable, Hashable, CaseIterable {
    /// The dialog is dismissed and counts as Don't Allow.
    case denies
    /// The dialog stays on screen, unanswered, until the user returns and answers.
    case stays
}
