/// What one read of the system returns: the authorization as the OS expresses it, and the
/// granular settings.
public struct NotificationSnapshot: Sendable, Hashable {
    /// How the OS expressed the authorization.
    public enum Authorization: Sendable, Hashable {
        /// iOS 10+: `UNAuthorizationStatus`, already mapped.
        case status(PermissionStatus)
        /// iOS 8–9: only the enabled types; the status needs the app's asked-flag too.
        case legacyTypes(LegacyNotificationTypes)
    }

    /// The authorization as read.
    public var authorization: Authorization
    /// The granular settings as read.
    public var settings: NotificationSettings

    /// A read of the system.
    public init(authorization: Authorization, settings: NotificationSettings) {
        self.authorization = authorization
        self.settings = settings
    }

    /// The status, given the app's persisted iOS 8–9 asked-flag.
    public func status(legacyRegistered: Bool) -> PermissionStatus {
        switch authorization {
        case .status(let status): status
        case .legacyTypes(let types): legacyPermissionStatus(types: types, registered: legacyRegistered)
        }
    }
}

/// What a permission request did right away.
public enum AuthorizationRequestResult: Sendable, Hashable {
    /// The system dialog is on screen; its answer arrives later as `system_prompt_answered`.
    case dialogShown
    /// No dialog could show (already answered, denied, provisional granted silently, or the
    /// app is not in the foreground): the system answered at once.
    case answeredWithoutDialog(granted: Bool)
}

/// The system's notification API, as the engine needs it. Implemented by the simulated device
/// (tests, scenarios, simulations) and by the Apple adapter on iOS.
///
/// The requirements are `nonisolated(nonsending)`: they run on the caller's executor, so the
/// engine calls a client that needs no executor of its own (the simulated device) without
/// leaving its actor and coming back. A conformer's plain `async` methods still satisfy them.
public protocol NotificationCenterClient: Sendable {
    /// Reads the current authorization and settings. May be stale right after the app returns
    /// to the foreground: a change can show only on a later read.
    nonisolated(nonsending) func readSettings() async -> NotificationSnapshot
    /// iOS 10+: `requestAuthorization(options:)`.
    nonisolated(nonsending) func requestAuthorization(options: [AuthorizationOption]) async -> AuthorizationRequestResult
    /// iOS 8–9: `registerUserNotificationSettings`. The register callback fires after the
    /// dialog is answered, or at once when no dialog can show.
    nonisolated(nonsending) func registerLegacy(types: LegacyNotificationTypes) async -> AuthorizationRequestResult
    /// The local notifications waiting to fire, soonest first.
    nonisolated(nonsending) func pendingReminders() async -> [ScheduledReminder]
    /// Adds local notifications. The system keeps at most 64 (`pendingOverflow` says which).
    nonisolated(nonsending) func schedule(_ reminders: [ScheduledReminder]) async
    /// Posts a local notification for delivery now (`notify`): on iOS a request with no
    /// trigger, which the system delivers at once (docs/platform.md N-04). Its `fireDate` is
    /// the time it was posted.
    nonisolated(nonsending) func post(_ notification: ScheduledReminder) async
    /// Removes pending local notifications by identifier (`removePendingNotificationRequests`);
    /// unknown identifiers are ignored, as iOS ignores them.
    nonisolated(nonsending) func removePendingReminders(ids: [String]) async
    /// Which notifications this system keeps past 64 pending; `nil` (the default): what iOS
    /// does on the engine's platform, `PendingOverflow.observed(on:)`. The simulated device
    /// says its own, so the planner and the device agree in a scenario.
    var pendingOverflowRule: PendingOverflow? { get }
}

extension NotificationCenterClient {
    /// What iOS does on the engine's platform.
    public var pendingOverflowRule: PendingOverflow? { nil }
}
