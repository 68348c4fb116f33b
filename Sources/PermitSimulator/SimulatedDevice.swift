import Foundation
import PermitCore

/// A faithful stand-in for iOS's notification system (docs/reference/policy.md#platform), for tests, scenarios and
/// simulations.
///
/// It keeps the device's truth (the authorization, the settings, whether the dialog was
/// answered in this install, the pending notifications) and enforces every platform rule:
/// the dialog is answered at most once per install (leaving the app may close it unanswered),
/// never appears after a denial or while the app is in the background, and an entitled app asks
/// for critical alerts in a dialog of their own; nothing is scheduled while the app is not
/// authorized; provisional is granted silently on iOS 12+, and a full request while
/// provisional shows the real dialog; iOS 8–9 exposes only the enabled types and fires the
/// register callback after the dialog, or at once when none can show; changes made in Settings
/// reach the app only when it reads again (and, with `staleReadsAfterChange`, only on a later
/// read); a reinstall may or may not keep the old answer; delivered notifications leave the
/// pending list as the clock passes them.
///
/// Thread-safe: all state sits behind one lock.
public final class SimulatedDevice: NotificationCenterClient {
    /// The iOS version it simulates.
    public let platform: Platform
    /// The notification entitlements the app is signed with.
    public let entitlements: Set<NotificationEntitlement>
    /// The App Clip's Info.plist has `NSAppClipRequestEphemeralUserNotification`: on iOS 14+ each
    /// launch grants ephemeral authorization for 8 hours (docs/platform.md ).
    public let ephemeralNotifications: Bool
    /// The switch on the App Clip card: ephemeral notifications are on by default, and the user
    /// can turn them off there before opening the clip (docs/platform.md A-01). Off, no launch
    /// grants ephemeral authorization.
    public let appClipCardNotifications: Bool
    /// The user has Scheduled Summary on (Settings › Notifications, iOS 15+): the system dialog
    /// offers "Add to Scheduled Summary" besides "Allow Immediate Notifications" and "Don't
    /// Allow" (docs/platform.md S-04).
    public let scheduledSummary: Bool
    /// How long an App Clip's ephemeral authorization lasts after a launch.
    public static let ephemeralLifetime: TimeInterval = 8 * 3_600
    /// The app's Keychain items: unlike its files they outlive a reinstall (docs/platform.md
    /// K-01), so the engine's durable part (`remember_durable`) is kept here, on the device.
    public let keychain = InMemoryDurableStore()
    /// Which notifications are kept past the 64 pending (docs/platform.md Q-01).
    public let pendingOverflow: PendingOverflow
    /// The planner follows the device's rule.
    public var pendingOverflowRule: PendingOverflow? { pendingOverflow }
    /// What pressing Home (or locking) does to the system dialog on screen (docs/platform.md D-02).
    public let dialogOnBackground: DialogOnBackground
    /// The app offers Live Activities (`NSSupportsLiveActivities`): on iOS 16.1+ their switch is
    /// on at install (docs/platform.md LA-01).
    public let offersLiveActivities: Bool
    let clock: any PermitClock
    /// Internal so that the device's other files (`SimulatedDevice+World`) share the one lock.
    let state: Locked<State>

    struct State {
        var authorization: PermissionStatus
        var settings: NotificationSettings
        /// The system dialog was answered in this install (or the system remembers an answer).
        var dialogAnswered: Bool
        /// The options (or legacy types) of the request whose dialog is on screen.
        var dialogOnScreen: [AuthorizationOption]?
        /// The dialog on screen is iOS's separate critical-alerts dialog (an entitled app,
        /// already authorized, asking for `critical_alert`; docs/platform.md S-02).
        var criticalAlertsDialog = false
        /// The user answered the critical-alerts question in this install (with the main dialog
        /// or the separate one): iOS does not ask it again.
        var criticalAlertsAnswered = false
        /// The options of the request that granted provisional authorization: what "Deliver
        /// Prominently" turns on later.
        var provisionalOptions: [AuthorizationOption] = []
        /// When the App Clip's ephemeral authorization ends (8 hours after its last launch).
        var ephemeralUntil: Date?
        var legacyTypesRequested: LegacyNotificationTypes = .all
        var inForeground = true
        var staleReadsAfterChange: Int
        var staleReadsLeft = 0
        var lastReported: NotificationSnapshot?
        /// In the order they were added (a replacement counts as added when replaced).
        var pending: [ScheduledReminder] = []
        /// The device's time zone: pending notifications keep their wall-clock time across a change.
        var timeZone: TimeZone
        /// A request asked for `provides_app_settings` (iOS 12+): Settings shows the link to
        /// the app's own notification settings.
        var showsAppSettingsLink = false
        var delivered: [ScheduledReminder] = []
        /// Every notification posted for delivery now, in order, with its fate.
        var posted: [PostedNotification] = []
        /// The app's Live Activities switch (iOS 16.1+): kept apart from `settings`, which
        /// every notification answer replaces, and laid over them when read (LA-01).
        var liveActivities: SettingValue = .notSupported
        var dialogsShownThisInstall = 0
        var dialogsShownInAll = 0
        var installs = 1
    }

    /// A device as iOS would be at install time (or later, with `authorization` already set).
    ///
    /// Throws when the starting state cannot exist on that platform (say, `provisional`
    /// before iOS 12), so a scenario cannot test a device no user has.
    ///
    /// - Parameters:
    ///   - platform: the iOS version and whether the app is an App Clip.
    ///   - clock: the clock the device stamps answers and fires reminders by; share the
    ///     engine's so both agree on the time.
    ///   - authorization: the device's truth at the start; defaults to `ephemeral` for an App Clip
    ///     on iOS 14+, `not_determined` otherwise. `denied` and `authorized` mean the dialog was
    ///     already answered in this install.
    ///   - settings: defaults to the settings iOS reports for that authorization on that version.
    ///   - staleReadsAfterChange: how many reads after a change in Settings still report the old
    ///     values (iOS can be late right after the app returns to the foreground).
    ///   - entitlements: the notification entitlements the app is signed with; critical alerts
    ///     and time-sensitive notifications are enabled only with theirs.
    ///   - ephemeralNotifications: the App Clip asks for ephemeral notifications
    ///     (`NSAppClipRequestEphemeralUserNotification`); without it a clip starts `not_determined`.
    ///   - appClipCardNotifications: the App Clip card's notification switch; off, the clip gets
    ///     no ephemeral authorization (it reads `not_determined`) and can schedule nothing.
    ///   - scheduledSummary: the user has Scheduled Summary on (iOS 15+), so the dialog offers
    ///     "Add to Scheduled Summary" (`answerDialogAddingToSummary`).
    ///   - pendingOverflow: which notifications iOS keeps past 64 pending; `nil` picks what the
    ///     evidence supports on that version (`PendingOverflow.observed(on:)`).
    ///   - timeZone: the device's time zone, which a scenario's `timezone:` step changes.
    ///   - dialogOnBackground: what leaving the app does to a permission dialog on screen.
    ///   - liveActivities: the app offers Live Activities (`NSSupportsLiveActivities`): on
    ///     iOS 16.1+ their switch starts on, unless `settings` says otherwise.
    public init(
        platform: Platform,
        clock: any PermitClock,
        authorization: PermissionStatus? = nil,
        settings: NotificationSettings? = nil,
        staleReadsAfterChange: Int = 0,
        entitlements: Set<NotificationEntitlement> = [],
        ephemeralNotifications: Bool = false,
        appClipCardNotifications: Bool = true,
        scheduledSummary: Bool = false,
        pendingOverflow: PendingOverflow? = nil,
        timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        dialogOnBackground: DialogOnBackground = .observed,
        liveActivities: Bool = false
    ) throws(SimulatedDeviceError) {
        let ephemeral = platform.capabilities.ephemeral && ephemeralNotifications && appClipCardNotifications
        let status = authorization ?? (ephemeral ? .ephemeral : .notDetermined)
        try SimulatedDevice.check(status, on: platform)
        if status == .ephemeral, !ephemeralNotifications {
            throw .invalidAuthorization(
                "ephemeral authorization needs NSAppClipRequestEphemeralUserNotification in the App Clip's Info.plist "
                    + "(scenario device key app_clip_ephemeral: true)")
        }
        if status == .ephemeral, !appClipCardNotifications {
            throw .invalidAuthorization(
                "ephemeral authorization is off: the user switched notifications off on the App Clip card "
                    + "(scenario device key app_clip_card_notifications: false)")
        }
        self.ephemeralNotifications = ephemeralNotifications
        self.appClipCardNotifications = appClipCardNotifications
        self.scheduledSummary = scheduledSummary && platform.version >= NotificationSettings.Setting.scheduledDelivery.introducedIn
        let settings = settings ?? .typical(for: status, on: platform.version, entitlements: entitlements)
        self.entitlements = entitlements
        try SimulatedDevice.check(settings, on: platform.version)
        self.platform = platform
        self.clock = clock
        self.pendingOverflow = pendingOverflow ?? .observed(on: platform.version)
        self.dialogOnBackground = dialogOnBackground
        self.offersLiveActivities = liveActivities
        var liveActivitiesSwitch = Self.liveActivitiesAtInstall(on: platform, offered: liveActivities)
        if settings.liveActivities != .notSupported { liveActivitiesSwitch = settings.liveActivities }
        self.state = Locked(
            State(
                authorization: status,
                settings: settings,
                dialogAnswered: status == .denied || status == .authorized,
                // A device that starts provisional was granted by a request the scenario does not
                // show; assume the common one (alert, sound, badge) for a later "Deliver Prominently".
                provisionalOptions: status == .provisional ? [.alert, .sound, .badge] : [],
                ephemeralUntil: status == .ephemeral ? clock.now().addingTimeInterval(Self.ephemeralLifetime) : nil,
                staleReadsAfterChange: max(0, staleReadsAfterChange),
                timeZone: timeZone,
                liveActivities: liveActivitiesSwitch
            ))
    }

    // MARK: NotificationCenterClient

    /// The device's truth, unless a stale read is due.
    public nonisolated(nonsending) func readSettings() async -> NotificationSnapshot { read() }

    /// The synchronous form of `readSettings`.
    public func read() -> NotificationSnapshot {
        let now = clock.now()
        return state.withLock { state in
            expireEphemeral(&state, now: now)
            if state.staleReadsLeft > 0, let last = state.lastReported {
                state.staleReadsLeft -= 1
                return last
            }
            let snapshot = snapshot(of: state)
            state.lastReported = snapshot
            return snapshot
        }
    }

    /// Puts the dialog on screen when iOS would, or answers at once when it would not.
    public nonisolated(nonsending) func requestAuthorization(options: [AuthorizationOption]) async -> AuthorizationRequestResult {
        request(options: options)
    }

    /// The iOS 8–9 registration: a dialog the first time, then an answer at once.
    public nonisolated(nonsending) func registerLegacy(types: LegacyNotificationTypes) async -> AuthorizationRequestResult {
        register(types: types)
    }

    /// The synchronous form of `requestAuthorization` (iOS 10+).
    public func request(options: [AuthorizationOption]) -> AuthorizationRequestResult {
        let now = clock.now()
        return state.withLock { state in
            expireEphemeral(&state, now: now)
            let silentProvisional = options.contains(.provisional) && platform.capabilities.provisional
            // Any request with the option shows the link, whatever the answer (an assumption:
            // Apple documents the link, not when it appears; docs/platform.md N-01).
            if options.contains(.providesAppSettings), platform.capabilities.provisional {
                state.showsAppSettingsLink = true
            }
            let current = state.authorization
            let canShow = state.dialogOnScreen == nil && state.inForeground && !state.dialogAnswered
            switch current {
            case .authorized where canAskCriticalAlerts(state, options: options):
                showDialog(&state, options: options)
                state.criticalAlertsDialog = true
                return .dialogShown
            case .notDetermined where silentProvisional:
                state.authorization = .provisional
                state.settings = typical(.provisional)
                state.provisionalOptions = options
                return .answeredWithoutDialog(granted: true)
            case .notDetermined where canShow, .provisional where canShow && !silentProvisional,
                .ephemeral where canShow && !silentProvisional:
                showDialog(&state, options: options)
                return .dialogShown
            default:
                return .answeredWithoutDialog(granted: current.isGranted)
            }
        }
    }

    /// The synchronous form of `registerLegacy` (iOS 8–9).
    public func register(types: LegacyNotificationTypes) -> AuthorizationRequestResult {
        state.withLock { state in
            if state.dialogOnScreen == nil, state.inForeground, !state.dialogAnswered {
                state.legacyTypesRequested = types
                showDialog(&state, options: [])
                return .dialogShown
            }
            return .answeredWithoutDialog(
                granted: !LegacyNotificationTypes(enabledIn: state.settings).isEmpty
                    && state.authorization.isGranted)
        }
    }

    /// Reminders waiting to fire, soonest first.
    public nonisolated(nonsending) func pendingReminders() async -> [ScheduledReminder] { pending }

    /// Adds reminders; like iOS, keeps 64 (which ones: `pendingOverflow`).
    public nonisolated(nonsending) func schedule(_ reminders: [ScheduledReminder]) async { _ = add(reminders) }

    /// Delivers at once what iOS would of it, and records it with its fate (`posted`).
    public nonisolated(nonsending) func post(_ notification: ScheduledReminder) async {
        let now = clock.now()
        state.withLock { state in
            expireEphemeral(&state, now: now)
            state.posted.append(
                PostedNotification.delivered(notification, status: state.authorization, settings: state.settings))
        }
    }

    /// Every notification posted so far, in order, with how it was delivered.
    public var posted: [PostedNotification] { state.withLock { $0.posted } }

    /// Removes pending notifications by identifier; unknown ones are ignored.
    public nonisolated(nonsending) func removePendingReminders(ids: [String]) async { remove(ids: ids) }

    // MARK: The user and the world

    /// Whether the system dialog is on screen, waiting for `answerDialog`.
    public var isDialogOnScreen: Bool { state.withLock { $0.dialogOnScreen != nil } }

    /// The device's truth (not what the app last read).
    public var authorization: PermissionStatus { state.withLock { $0.authorization } }
    /// The settings as they really are (no stale read).
    public var settings: NotificationSettings { state.withLock { Self.withLiveActivities($0) } }

    /// The Live Activities switch of a new install: on when the app offers them (iOS 16.1+).
    static func liveActivitiesAtInstall(on platform: Platform, offered: Bool) -> SettingValue {
        guard platform.version >= NotificationSettings.Setting.liveActivities.introducedIn else { return .notSupported }
        return offered ? .enabled : .disabled
    }

    /// The notification settings with the Live Activities switch laid over them.
    static func withLiveActivities(_ state: State) -> NotificationSettings {
        var settings = state.settings
        settings.liveActivities = state.liveActivities
        return settings
    }

    /// How many times the system dialog appeared in this install, and in all installs.
    public var dialogsShownThisInstall: Int { state.withLock { $0.dialogsShownThisInstall } }
    /// How many system dialogs appeared in all, across reinstalls.
    public var dialogsShownInAll: Int { state.withLock { $0.dialogsShownInAll } }

    /// Whether the app is in the foreground.
    public var isInForeground: Bool {
        get { state.withLock { $0.inForeground } }
        set { state.withLock { $0.inForeground = newValue } }
    }

    /// The app is launched. An App Clip with `NSAppClipRequestEphemeralUserNotification` on
    /// iOS 14+ gets (or keeps) ephemeral authorization for 8 hours from now, unless the user
    /// already answered the real dialog.
    public func launch() {
        let now = clock.now()
        state.withLock { state in
            guard ephemeralNotifications, appClipCardNotifications, platform.capabilities.ephemeral, !state.dialogAnswered,
                state.authorization == .ephemeral || state.authorization == .notDetermined
            else { return }
            if state.authorization != .ephemeral {
                state.authorization = .ephemeral
                state.settings = typical(.ephemeral)
            }
            state.ephemeralUntil = now.addingTimeInterval(Self.ephemeralLifetime)
        }
    }

    /// The user taps Allow or Don't Allow. Returns `granted`, which the app then reports as
    /// `system_prompt_answered` (on iOS 8–9: the register callback). The separate
    /// critical-alerts dialog (S-02) leaves the app authorized, so its request completes as
    /// granted whatever the answer (as a public report saw after "Don't Allow"); only
    /// `critical_alert` tells the answers apart.
    @discardableResult
    public func answerDialog(allow: Bool) throws(SimulatedDeviceError) -> Bool {
        try state.withLock { (state: inout State) throws(SimulatedDeviceError) -> Bool in
            guard state.dialogOnScreen != nil else { throw .noDialogOnScreen }
            let critical = state.criticalAlertsDialog
            answer(&state, allow: allow)
            return critical ? state.authorization.isGranted : allow
        }
    }

    /// The user taps "Add to Scheduled Summary" (offered with Scheduled Summary on, iOS 15+):
    /// the app is authorized as with Allow, and `scheduled_delivery` is enabled, so its
    /// notifications wait for the user's next summary. Returns `granted` (true).
    @discardableResult
    public func answerDialogAddingToSummary() throws(SimulatedDeviceError) -> Bool {
        try state.withLock { (state: inout State) throws(SimulatedDeviceError) -> Bool in
            guard state.dialogOnScreen != nil else { throw .noDialogOnScreen }
            guard scheduledSummary, !state.criticalAlertsDialog else { throw .noSummaryChoice }
            answer(&state, allow: true)
            state.settings.scheduledDelivery = .enabled
            return true
        }
    }

    /// Whether the dialog on screen is iOS's separate critical-alerts dialog.
    public var isCriticalAlertsDialogOnScreen: Bool { state.withLock { $0.criticalAlertsDialog } }

    /// Whether a request while authorized puts iOS's separate critical-alerts dialog on screen:
    /// it asks for `critical_alert`, the app has the entitlement (iOS 12+), and the question was
    /// not answered yet in this install (docs/platform.md S-02).
    func canAskCriticalAlerts(_ state: State, options: [AuthorizationOption]) -> Bool {
        options.contains(.criticalAlert) && entitlements.contains(.criticalAlerts)
            && platform.version >= NotificationSettings.Setting.criticalAlert.introducedIn
            && !state.criticalAlertsAnswered && state.dialogOnScreen == nil && state.inForeground
    }

    /// Takes the dialog on screen off it with the user's answer. The critical-alerts dialog
    /// changes only that setting: the app stays authorized either way.
    func answer(_ state: inout State, allow: Bool) {
        guard let options = state.dialogOnScreen else { return }
        state.dialogOnScreen = nil
        if options.contains(.criticalAlert), entitlements.contains(.criticalAlerts) { state.criticalAlertsAnswered = true }
        if state.criticalAlertsDialog {
            state.criticalAlertsDialog = false
            state.settings.criticalAlert = allow ? .enabled : .disabled
            return
        }
        state.dialogAnswered = true
        if allow {
            state.authorization = .authorized
            state.settings =
                platform.usesLegacyRegistration
                ? state.legacyTypesRequested.settings
                : .granted(options: options, on: platform.version, entitlements: entitlements)
        } else {
            state.authorization = .denied
            state.settings = typical(.denied)
        }
    }

    /// The user changes the app's notification settings in the Settings app. The app sees it
    /// on its next read (or a later one, with `staleReadsAfterChange`).
    ///
    /// - Parameters:
    ///   - authorization: `authorized` or `denied` ("Allow Notifications"). Provisional is granted
    ///     only through the API; "Deliver Quietly" is a change of settings (alert, sound, badge off)
    ///     with the status staying authorized. Settings become what iOS shows for the new
    ///     authorization, then `changes` applies.
    ///   - changes: individual switches.
    public func changeInSettings(
        authorization: PermissionStatus? = nil,
        settings changes: [NotificationSettings.Setting: SettingValue] = [:]
    ) throws(SimulatedDeviceError) {
        try state.withLock { (state: inout State) throws(SimulatedDeviceError) in
            if state.authorization == .notDetermined, state.dialogOnScreen == nil, authorization != nil {
                throw .notListedInSettings
            }
            var newSettings = state.settings
            if let authorization {
                guard authorization == .authorized || authorization == .denied else {
                    throw .invalidSettingsChange(
                        "Settings can switch notifications to authorized or denied, not \(authorization)"
                            + (authorization == .provisional
                                ? " (provisional comes only from a request; \"Deliver Quietly\" turns alert, sound and badge off)" : ""))
                }
                if authorization == .authorized, state.authorization == .provisional {
                    // "Deliver Prominently": what the provisional request asked for, no more.
                    newSettings = .granted(options: state.provisionalOptions, on: platform.version, entitlements: entitlements)
                } else if authorization != state.authorization {
                    newSettings = typical(authorization)
                }
                state.authorization = authorization
                state.dialogAnswered = true
            }
            for (setting, value) in changes {
                guard platform.version >= setting.introducedIn else {
                    throw .invalidSettingsChange(
                        "\(setting.rawValue) does not exist on iOS \(platform.version) (it came with iOS \(setting.introducedIn))")
                }
                guard value != .notSupported else {
                    throw .invalidSettingsChange("\(setting.rawValue) can be switched to enabled or disabled, not not_supported")
                }
                if setting == .liveActivities {
                    state.liveActivities = value
                    continue
                }
                newSettings[setting] = value
            }
            state.settings = newSettings
            state.staleReadsLeft = state.staleReadsAfterChange
        }
    }

    /// The app is deleted and installed again. Its pending notifications go with it. When
    /// `systemRemembers` is false the device forgets the answer (the dialog can show again);
    /// when true it keeps it, as iOS sometimes does. The app's Keychain items survive unless
    /// `keychainSurvives` is false (an erased device, or an iOS that deletes them with the app).
    public func reinstall(systemRemembers: Bool, keychainSurvives: Bool = true) {
        if !keychainSurvives { keychain.erase() }
        state.withLock { state in
            state.pending = []
            state.dialogOnScreen = nil
            state.criticalAlertsDialog = false
            state.dialogsShownThisInstall = 0
            state.installs += 1
            state.lastReported = nil
            state.staleReadsLeft = 0
            state.inForeground = true
            // A new install's switch: deleting an app takes its settings with it.
            state.liveActivities = Self.liveActivitiesAtInstall(on: platform, offered: offersLiveActivities)
            if !systemRemembers {
                state.authorization = .notDetermined
                state.settings = typical(.notDetermined)
                state.dialogAnswered = false
                state.criticalAlertsAnswered = false
                state.ephemeralUntil = nil
            }
        }
    }

    /// Notifications still to fire at the clock's current time, soonest first, as
    /// `getPendingNotificationRequests` reports them: none while notifications are off, when
    /// iOS keeps them frozen (`frozenPendingCount`, docs/platform.md Q-04). Those whose time has
    /// passed move to `delivered`.
    public var pending: [ScheduledReminder] {
        let now = clock.now()
        return state.withLock { state in
            // The usual read (the engine reads before every reminder plan) finds nothing due
            // and the list in order: then neither step copies it.
            deliverDue(&state, now: now)
            return Self.isFrozen(state) ? [] : Self.soonestFirst(state.pending)
        }
    }

    /// How many pending notifications iOS holds frozen while notifications are off: the app
    /// reads none of them and can neither add, replace nor remove any, and they all come back,
    /// as they were, when the user turns notifications on again (docs/platform.md Q-04).
    public var frozenPendingCount: Int {
        let now = clock.now()
        return state.withLock { state in
            deliverDue(&state, now: now)
            return Self.isFrozen(state) ? state.pending.count : 0
        }
    }

    /// Notifications are off in Settings: the app's pending requests are frozen.
    static func isFrozen(_ state: State) -> Bool { state.authorization == .denied }

    /// Notifications whose time has come, in the order they fired.
    public var delivered: [ScheduledReminder] {
        let now = clock.now()
        return state.withLock { state in
            deliverDue(&state, now: now)
            return state.delivered
        }
    }

    /// Moves the notifications whose time has come to `delivered`, soonest first. A simulation
    /// looks at the pending list on every planning event, and most of the time nothing is due:
    /// then the list is left as it is, not copied into two new ones.
    private func deliverDue(_ state: inout State, now: Date) {
        guard state.pending.contains(where: { $0.fireDate <= now }) else { return }
        if Self.isFrozen(state) {
            // Nothing is shown while notifications are off, and a one-time trigger whose date
            // has passed never fires later: it is gone when they come back (an assumption,
            // docs/platform.md Q-04).
            state.pending.removeAll { $0.fireDate <= now }
            return
        }
        // Usually the list is soonest first (the planner's order) and what is due is its head,
        // already in firing order: that head moves as it is and the rest shifts down, where the
        // split below copies every pending notification into one of two new lists.
        // (By index, not through a slice: a slice kept alive would make the removal copy the list.)
        let dueCount = state.pending.firstIndex { !($0.fireDate <= now) } ?? state.pending.endIndex
        let headInOrder = (1..<max(dueCount, 1)).allSatisfy {
            !(state.pending[$0].fireDate < state.pending[$0 - 1].fireDate)
        }
        if headInOrder, !state.pending[dueCount...].contains(where: { $0.fireDate <= now }) {
            state.delivered.append(contentsOf: state.pending[..<dueCount])
            state.pending.removeFirst(dueCount)
            return
        }
        let (due, waiting) = state.pending.partitioned { $0.fireDate <= now }
        state.delivered.append(contentsOf: due.sorted { $0.fireDate < $1.fireDate })
        state.pending = waiting
    }

    /// `reminders` soonest first. The list is usually in that order already (a planner
    /// schedules its days in order): then it is returned as it is, which shares its storage,
    /// instead of sorted into a copy. The sort is stable, so the result is the same either way.
    private static func soonestFirst(_ reminders: [ScheduledReminder]) -> [ScheduledReminder] {
        for index in reminders.indices.dropFirst() where reminders[index - 1].fireDate > reminders[index].fireDate {
            return reminders.sorted { $0.fireDate < $1.fireDate }
        }
        return reminders
    }

    /// Adds notifications the way iOS does: one with an existing identifier replaces it, and
    /// only 64 are kept: the soonest or the newest (`pendingOverflow`). While the app is not
    /// authorized (not determined, denied, an App Clip whose ephemeral grant is off or over)
    /// iOS refuses them (`UNError.Code.notificationsNotAllowed`, docs/platform.md Q-03): nothing
    /// is added, and the result is false.
    @discardableResult
    public func add(_ reminders: [ScheduledReminder]) -> Bool {
        let now = clock.now()
        return state.withLock { state in
            expireEphemeral(&state, now: now)
            guard state.authorization.isGranted else { return false }
            deliverDue(&state, now: now)
            for reminder in reminders {
                state.pending.removeAll { $0.id == reminder.id }
                state.pending.append(reminder)
            }
            state.pending = pendingOverflow.kept(state.pending, limit: ReminderPlanner.systemPendingLimit)
            return true
        }
    }

    /// Removes pending notifications by identifier, as `removePendingNotificationRequests`
    /// does; unknown identifiers are ignored. While notifications are off it has no effect: the
    /// requests are frozen and come back when they are turned on (docs/platform.md Q-04).
    public func remove(ids: [String]) {
        let doomed = Set(ids)
        state.withLock { state in
            guard !Self.isFrozen(state) else { return }
            state.pending.removeAll { doomed.contains($0.id) }
        }
    }

    // MARK: Private

    /// Eight hours after the last launch an App Clip's ephemeral authorization ends: it reads
    /// `not_determined` again (Apple does not document the status after expiry; Permit's
    /// assumption, docs/platform.md A-02) and its pending notifications are gone.
    func expireEphemeral(_ state: inout State, now: Date) {
        guard state.authorization == .ephemeral, let until = state.ephemeralUntil, now >= until else { return }
        state.authorization = .notDetermined
        state.settings = typical(.notDetermined)
        state.pending = []
        state.ephemeralUntil = nil
    }

    /// What iOS shows for `status` on this device's version, with its entitlements.
    func typical(_ status: PermissionStatus) -> NotificationSettings {
        .typical(for: status, on: platform.version, entitlements: entitlements)
    }

    func showDialog(_ state: inout State, options: [AuthorizationOption]) {
        state.dialogOnScreen = options
        state.dialogsShownThisInstall += 1
        state.dialogsShownInAll += 1
    }

    private func snapshot(of state: State) -> NotificationSnapshot {
        if platform.usesLegacyRegistration {
            let types = state.authorization.isGranted ? LegacyNotificationTypes(enabledIn: state.settings) : []
            return NotificationSnapshot(authorization: .legacyTypes(types), settings: types.settings)
        }
        return NotificationSnapshot(authorization: .status(state.authorization), settings: Self.withLiveActivities(state))
    }

    private static func check(_ status: PermissionStatus, on platform: Platform) throws(SimulatedDeviceError) {
        switch status {
        case .unknown:
            throw .invalidAuthorization("the device always knows its authorization; unknown is only what the app has not read yet")
        case .provisional where !platform.capabilities.provisional:
            throw .invalidAuthorization("provisional authorization needs iOS 12; this device runs iOS \(platform.version)")
        case .ephemeral where !platform.capabilities.ephemeral:
            throw .invalidAuthorization("ephemeral authorization exists only for App Clips on iOS 14 and later")
        default:
            return
        }
    }

    private static func check(_ settings: NotificationSettings, on version: OSVersion) throws(SimulatedDeviceError) {
        for setting in NotificationSettings.Setting.allCases
        where version < setting.introducedIn && settings[setting] != .notSupported {
            throw .invalidSettingsChange(
                "\(setting.rawValue) does not exist on iOS \(version) (it came with iOS \(setting.introducedIn))")
        }
    }
}

/// Something the simulated device cannot do, because iOS cannot either.
public enum SimulatedDeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `answerDialog` with no dialog on screen.
    case noDialogOnScreen
    /// A change in Settings before the app was ever asked: iOS lists it there only after.
    case notListedInSettings
    /// A starting authorization the platform cannot have.
    case invalidAuthorization(String)
    /// A change in Settings the platform does not offer.
    case invalidSettingsChange(String)
    /// The user taps the link to the app's notification settings, which Settings does not show.
    case noAppSettingsLink
    /// "Add to Scheduled Summary" on a dialog that does not offer it.
    case noSummaryChoice
    /// The app's work in the background while it is in the foreground: iOS runs a
    /// `BGAppRefreshTask` or a background fetch only for an app that is not.
    case backgroundRefreshInForeground

    /// What was wrong, in a scenario author's words.
    public var description: String {
        switch self {
        case .noDialogOnScreen:
            "there is no system dialog on screen to answer"
        case .notListedInSettings:
            "the app is not listed in Settings › Notifications until it has asked for permission"
        case .noAppSettingsLink:
            "Settings shows no link to the app's notification settings: it appears on iOS 12+ once the app "
                + "requested provides_app_settings"
        case .noSummaryChoice:
            "the dialog offers \"Add to Scheduled Summary\" only on iOS 15+ with Scheduled Summary on "
                + "(scenario device key scheduled_summary: true), and not on the critical-alerts dialog"
        case .backgroundRefreshInForeground:
            "background_refresh is the app's work in the background (a BGAppRefreshTask, a background fetch, "
                + "a silent push), which iOS runs only while the app is not in the foreground; "
                + "leave the app first (`event: app_background`)"
        case .invalidAuthorization(let reason), .invalidSettingsChange(let reason):
            reason
        }
    }
}

extension Array {
    func partitioned(by isFirst: (Element) -> Bool) -> ([Element], [Element]) {
        var first: [Element] = []
        var second: [Element] = []
        for element in self {
            if isFirst(element) { first.append(element) } else { second.append(element) }
        }
        return (first, second)
    }
}
