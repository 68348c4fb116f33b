/// What the app knows about its notification permission.
///
/// The raw values are the names policies see (`ctx.status`), so a Lua script and a Swift
/// host talk about the same six states.
public enum PermissionStatus: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The status has not been read yet this session.
    case unknown
    /// The system dialog has not been answered (on iOS 8–9: no types and no asked-flag).
    case notDetermined = "not_determined"
    /// The user said no, in the dialog or later in Settings.
    case denied
    /// The user allowed notifications.
    case authorized
    /// Quiet delivery granted without a dialog (iOS 12+).
    case provisional
    /// Temporary permission of an App Clip (iOS 14+).
    case ephemeral

    /// Notifications can be delivered: authorized, provisional or ephemeral.
    public var isGranted: Bool {
        switch self {
        case .authorized, .provisional, .ephemeral: true
        case .unknown, .notDetermined, .denied: false
        }
    }

    /// A permission request can still show the system dialog. While provisional, or ephemeral
    /// (an App Clip may ask for full authorization, docs/platform.md A-03), a request without
    /// the `.provisional` option shows the real dialog.
    public var allowsSystemDialog: Bool { self == .notDetermined || self == .provisional || self == .ephemeral }

    /// Whether a request with these options puts the system dialog on screen (the app being in
    /// the foreground). With the `provisional` option on iOS 12+, a request while not determined
    /// is granted silently and a request while provisional changes nothing.
    public func requestShowsDialog(options: [AuthorizationOption], provisionalSupported: Bool) -> Bool {
        allowsSystemDialog && !(provisionalSupported && options.contains(.provisional))
    }

    /// The user refused; only Settings can change that now.
    public var isDenied: Bool { self == .denied }

    /// The Lua name.
    public var description: String { rawValue }
}
