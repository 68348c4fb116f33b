import Foundation
import PermitCore

/// The app on a simulated iPhone: the clock, the device, the app's process (an engine per
/// process), what it has on screen, what outlives a process (its files, the Keychain on the
/// device) and what a reinstall wipes, the policy each process runs (through one hook,
/// `PolicyPerProcess`), Settings visits, and the system events iOS queues while the app is
/// suspended. The scenario player turns a scenario's steps into its calls and the population
/// simulation turns each user's drawn behaviour into the same calls, so the device's rules
/// (docs/platform.md) have one implementation.
///
/// A value type: each player owns its app and changes it in place. The calls that send events
/// take the running process's engine as `isolated`, so that a caller already running on that
/// engine (the simulation's sessions) makes no executor switch per event.
public struct SimulatedApp: Sendable {
    /// The time the engine and the device share.
    public let clock: ManualClock
    /// The iPhone the app runs on.
    public let device: SimulatedDevice
    /// The app's files: the saved ledger each process loads, wiped by a reinstall.
    public let files: AppFiles
    /// What each process's engine is made with; its time zone is the device's at each start.
    public var configuration: EngineConfiguration
    private let policies: any PolicyPerProcess
    /// The running process; `nil` before the first start, after `terminate` and after a
    /// reinstall, until the next launch.
    public private(set) var process: SimulatedProcess?
    /// What the process has on screen, on top (nothing when none runs).
    public private(set) var screen = Screen.nothing
    /// The inline row beneath the modal on top (a prompt, a page or the system dialog): a row is
    /// part of its screen, and a modal comes up over that screen, so the row is there again once
    /// the modal goes.
    public private(set) var rowBeneath: Screen?
    /// A time-zone change, a midnight or a daylight-saving switch while the app was suspended:
    /// iOS queues the significant-time-change notification until the app returns to the
    /// foreground and coalesces several into one (docs/platform.md Z-02, Z-03). Gone with the
    /// process: a launch reads the zone itself.
    public private(set) var queuedTimeChange: TimeZone?
    /// The status the last process read, reported while none runs.
    private var statusWhenEnded = PermissionStatus.unknown
    /// When a process last existed as time passed (`advance(by:)`): on iOS 8–9 the system
    /// forgets the notification answer once the app stays deleted for a day (K-01).
    private var lastRanAt: Date?

    /// An installed app with no process yet (`startProcess` or `launch` makes one).
    ///
    /// - Parameters:
    ///   - device: the iPhone, made with `clock`.
    ///   - clock: the time the device and every engine read.
    ///   - files: the app's files (a fresh install's by default).
    ///   - configuration: what each engine is made with (the prompt cap, locale, params, ...).
    ///   - policies: the policy each process runs.
    public init(
        device: SimulatedDevice, clock: ManualClock, files: AppFiles = AppFiles(), configuration: EngineConfiguration,
        policies: any PolicyPerProcess
    ) {
        self.device = device
        self.clock = clock
        self.files = files
        self.configuration = configuration
        self.policies = policies
    }

    /// The running process's engine.
    public var engine: PermissionEngine? { process?.engine }

    /// The status as the running process last read it, or as the last one did.
    public var status: PermissionStatus { process?.engine.status ?? statusWhenEnded }

    /// Time passes on the device (the app running, suspended or closed).
    public mutating func advance(by seconds: TimeInterval) {
        if process != nil { lastRanAt = clock.now() }
        clock.advance(by: seconds)
    }

    // MARK: The process

    /// A new process, where none runs (a running one is kept: `launch` ends it first): a fresh
    /// engine over the saved files, in the device's current time zone, running the policy the
    /// hook makes. Nothing else happens on the device (`launch` is the user opening the app).
    ///
    /// - Throws: the hook's error: the app then has no process, or one running the hook's
    ///   `failedStartPolicy` when it gives one.
    public mutating func startProcess(processSeed: UInt64 = 0) throws(PolicyError) {
        guard process == nil else { return }
        let policy: any Policy
        var failure: PolicyError?
        do {
            policy = try policies.policy(processSeed: processSeed)
        } catch {
            guard let fallback = policies.failedStartPolicy else { throw error }
            policy = fallback
            failure = error
        }
        configuration.timeZone = device.timeZone
        let engine = PermissionEngine(
            policy: policy, client: device, platform: device.platform, store: files, durableStore: device.keychain,
            clock: clock, configuration: configuration)
        process = SimulatedProcess(engine: engine)
        if let failure { throw failure }
    }

    /// The user opens the app and iOS launches it: `didFinishLaunching` comes once per
    /// process, so a new process starts, unless the running one has handled no event yet (it
    /// is no different from a new one). An App Clip's ephemeral grant is renewed. The
    /// caller then sends `app_launch` through `foreground(sending:on:)`.
    ///
    /// - Throws: the hook's error: the app then has no process (and the device saw no launch),
    ///   or one running the hook's `failedStartPolicy`.
    @discardableResult
    public mutating func launch(processSeed: UInt64 = 0) async throws(PolicyError) -> Launch {
        if let process, !process.handledEvents {
            device.launch()
            return Launch(newProcess: false, restoredDurablePart: false, screenLost: nil)
        }
        let onScreen = screen
        await endProcess()
        do {
            try startProcess(processSeed: processSeed)
        } catch {
            // A process running a policy that failed to start is launched all the same.
            if process != nil { device.launch() }
            throw error
        }
        device.launch()
        return Launch(
            newProcess: true, restoredDurablePart: process?.engine.restoredDurablePart ?? false,
            screenLost: onScreen.isInApp ? onScreen : nil)
    }

    /// Ends the process (swiped away, or ended by iOS): its engine, its policy and its screen
    /// are gone, and so is a queued time change; what it saved stays. The app is no longer in
    /// the foreground. Returns what was on screen.
    @discardableResult
    public mutating func terminate() async -> Screen {
        let onScreen = screen
        await endProcess()
        return onScreen
    }

    private mutating func endProcess() async {
        guard let process else { return }
        statusWhenEnded = process.engine.status
        if !files.savesEveryEvent { files.keep(await process.engine.history) }
        policies.processEnded()
        queuedTimeChange = nil
        self.process = nil
        screen = .nothing
        rowBeneath = nil
        device.isInForeground = false
    }

    /// The app is deleted and installed again: the process ends, the app's files are wiped,
    /// the device drops its pending notifications and keeps or forgets the answer, and the
    /// Keychain survives unless `keychainSurvives` is false. The app runs again at the next
    /// launch. `systemRemembers` nil: what the system does on this version (`systemRemembers(on:deletedFor:)`),
    /// the app taken to be deleted when a process last existed.
    @discardableResult
    /// `uninstalledFor`: how long the app was deleted before this reinstall (iOS 8–9 counts
    /// its day from the uninstall, K-01); nil: since a process last existed.
    public mutating func reinstall(
        systemRemembers chosen: Bool? = nil, keychainSurvives: Bool = true, uninstalledFor: TimeInterval? = nil
    ) async -> Reinstall {
        let deletedFor = uninstalledFor ?? clock.now().timeIntervalSince(lastRanAt ?? clock.now())
        let remembers = chosen ?? Self.systemRemembers(on: device.platform.version, deletedFor: deletedFor)
        await endProcess()
        device.reinstall(systemRemembers: remembers, keychainSurvives: keychainSurvives)
        device.isInForeground = false
        files.wipe()
        policies.appReinstalled()
        statusWhenEnded = .unknown
        return Reinstall(systemRemembers: remembers, keychainSurvives: keychainSurvives)
    }

    /// What the system does with the notification answer at a reinstall that does not say
    /// (docs/platform.md K-01, I-01): iOS 8–9 keeps it unless the app stayed deleted for at
    /// least a day; iOS 10+ forgets it, and the dialog can show again.
    public static func systemRemembers(on version: OSVersion, deletedFor gap: TimeInterval) -> Bool {
        version < OSVersion(major: 10) && gap < TimeInterval(Ledger.systemMemory)
    }

    // MARK: Events

    /// Sends `event` to the running process's engine (`engine`). Inlinable: the simulation
    /// sends millions, and as a call of its own across modules each paid an async frame.
    @inlinable
    public mutating func send(_ event: AppEvent, on engine: isolated PermissionEngine) async -> Outcome {
        markHandled()
        return await engine.handle(event)
    }

    /// The process has handled an event: it is no longer the same as a new one.
    @usableFromInline
    mutating func markHandled() { process?.handledEvents = true }

    /// The app comes to the foreground and sends `event` (`app_launch` after a launch,
    /// `app_foreground` on a return): a time change queued while it was suspended reaches the
    /// engine first (one, with the zone the device is in now).
    public mutating func foreground(
        sending event: AppEvent = .appForeground, on engine: isolated PermissionEngine
    ) async -> Foreground {
        device.isInForeground = true
        let timeChange = await deliverQueuedTimeChange(on: engine)
        return Foreground(timeChange: timeChange, outcome: await send(event, on: engine))
    }

    private mutating func deliverQueuedTimeChange(on engine: isolated PermissionEngine) async -> DeliveredTimeChange? {
        guard let zone = queuedTimeChange else { return nil }
        queuedTimeChange = nil
        return DeliveredTimeChange(zone: zone, outcome: await send(.significantTimeChange(timeZone: zone), on: engine))
    }

    /// The user leaves the app (Home, the app switcher, the lock button) and it sends
    /// `app_background`. A system dialog on screen closes unanswered, is dismissed as Don't
    /// Allow, or stays for the return (`SimulatedDevice.dialogOnBackground`, D-02); when it
    /// closes, the request's answer reaches the app too.
    public mutating func background(on engine: isolated PermissionEngine) async -> Background {
        switch device.moveToBackground() {
        case .dialogDenied, .dialogDismissed:
            // The critical-alerts dialog (S-02) leaves the app authorized: its request
            // completes as granted, as when it is answered.
            let authorization = device.authorization
            let left = await send(.appBackground, on: engine)
            let answer = await send(.systemPromptAnswered(granted: authorization == .authorized), on: engine)
            return Background(dialog: .closed(authorization: authorization), outcome: left, answer: answer)
        case .dialogStays:
            return Background(dialog: .stays, outcome: await send(.appBackground, on: engine), answer: nil)
        case .noDialog:
            return Background(dialog: .none, outcome: await send(.appBackground, on: engine), answer: nil)
        }
    }

    /// The app runs in the background (a `BGAppRefreshTask`, a background fetch, a silent
    /// push, its own cycle) and sends `background_refresh`. iOS wakes only an app that is not in
    /// the foreground for such work, so in the foreground nothing is sent and the step is a
    /// mistake. A time change queued while the app was suspended stays queued: iOS delivers it
    /// at the return to the foreground (docs/platform.md Z-03).
    public mutating func refreshInBackground(on engine: isolated PermissionEngine) async throws(SimulatedDeviceError) -> Outcome {
        guard !device.isInForeground else { throw .backgroundRefreshInForeground }
        return await send(.backgroundRefresh, on: engine)
    }

    // MARK: Settings

    /// The user leaves the app for Settings (the settings prompt's Open, or the app opening
    /// Settings itself): the app is in the background meanwhile.
    public func leaveForSettings() {
        device.isInForeground = false
    }

    /// The user changes the app's notifications in Settings, as a user would.
    public func changeInSettings(
        authorization: PermissionStatus? = nil, settings: [NotificationSettings.Setting: SettingValue] = [:]
    ) throws(SimulatedDeviceError) {
        try device.changeInSettings(authorization: authorization, settings: settings)
    }

    /// The user taps the link to the app's notification settings in Settings › Notifications
    /// (N-01): the app opens to it in the foreground, hears a queued time change first, and
    /// sends `notification_settings_opened`.
    public mutating func openFromSettingsLink(on engine: isolated PermissionEngine) async throws(SimulatedDeviceError) -> Foreground {
        try device.openAppSettingsLink()
        let timeChange = await deliverQueuedTimeChange(on: engine)
        return Foreground(timeChange: timeChange, outcome: await send(.notificationSettingsOpened, on: engine))
    }

    // MARK: The world

    /// Midnight (or a daylight-saving switch) passed while the app was suspended: iOS queues
    /// `significant_time_change` for its return to the foreground, coalesced with any other
    /// (docs/platform.md Z-03). Nothing when no process runs: a launch reads the clock itself.
    public mutating func dayChangedWhileSuspended() {
        guard process != nil, queuedTimeChange == nil else { return }
        queuedTimeChange = device.timeZone
    }

    /// Time passes by `seconds`, and each local midnight and daylight-saving switch it crosses
    /// is a significant time change (docs/platform.md Z-03): an app in the foreground hears it
    /// at that moment, a suspended one has it queued (coalesced) for its return, an app not
    /// running hears nothing. Returns what the app heard now, and the moments crossed.
    public mutating func passTime(_ seconds: TimeInterval) async -> PassedTime {
        if process != nil { lastRanAt = clock.now() }
        let end = clock.now().addingTimeInterval(seconds)
        guard seconds > 0, let engine = process?.engine else {
            clock.set(end)
            return PassedTime(moments: [], heard: [], queued: false)
        }
        let zone = device.timeZone
        let moments = SignificantTimeChanges.between(clock.now(), end, in: zone)
        var heard: [Outcome] = []
        if !moments.isEmpty, device.isInForeground {
            markHandled()
            for moment in moments {
                clock.set(moment)
                heard.append(await engine.handle(.significantTimeChange(timeZone: zone)))
            }
        }
        let queued = !moments.isEmpty && !device.isInForeground
        if queued, queuedTimeChange == nil { queuedTimeChange = zone }
        clock.set(end)
        return PassedTime(moments: moments, heard: heard, queued: queued)
    }

    /// What `passTime` did.
    public struct PassedTime: Sendable {
        /// The midnights and daylight-saving switches crossed, soonest first.
        public var moments: [Date]
        /// What the app heard at each, in the foreground.
        public var heard: [Outcome]
        /// Queued for the suspended app's return.
        public var queued: Bool
    }

    /// The device changes time zone (the user travels, or sets it); pending notifications
    /// keep their wall-clock times (Z-01). The app hears `significant_time_change` at once in
    /// the foreground, at its return when suspended, and not at all when no process runs (the
    /// next launch reads the zone).
    public mutating func changeTimeZone(to zone: TimeZone) async -> TimeZoneChange {
        device.changeTimeZone(to: zone)
        guard let engine = process?.engine else { return .notRunning }
        guard device.isInForeground else {
            queuedTimeChange = zone
            return .queued
        }
        markHandled()
        return .heard(await engine.handle(.significantTimeChange(timeZone: zone)))
    }

    // MARK: The screen

    /// What became of the screen after an outcome.
    public struct ScreenUpdate: Sendable, Hashable {
        /// The app's own UI that the outcome's prompt replaced, though the user had only left
        /// and come back.
        public var replaced: Screen?
        /// The app's own UI still on screen, as the user left it.
        public var kept: Screen?
        /// The app's own UI the decision took off screen (`dismiss`).
        public var dismissed: Screen?
        /// The decision was `dismiss` with none of the app's own UI on screen: nothing to do.
        public var nothingToDismiss = false
        /// The decision opened Settings at once: the user is there, the app in the background.
        public var openedSettings: Bool
    }

    /// Puts on screen what `outcome` shows. A modal goes over a row, which stays beneath; a new
    /// row replaces the row (beneath the modal, if one is up), a new modal the modal. `dismiss`
    /// takes away the app's modal if one is up, else the row. A decision's `row` then replaces
    /// the row, beneath whatever modal is up. `userOnlyLeft` says the event was
    /// the user leaving or coming back (or time passing): the app's own prompt or row is then
    /// still there, as the user left it (U-01), unless the policy shows something else. `nil`
    /// when the system dialog kept while the app was away is back on screen: the outcome changes
    /// nothing.
    public mutating func show(after outcome: Outcome, userOnlyLeft: Bool) -> ScreenUpdate? {
        guard !(screen == .systemDialog && device.isDialogOnScreen) else { return nil }
        var update = ScreenUpdate(openedSettings: false)
        switch Screen.change(after: outcome) {
        case .show(let next) where next.isInline && screen.isInApp && !screen.isInline:
            if let row = rowBeneath, userOnlyLeft { update.replaced = row }
            rowBeneath = next
        case .show(let next):
            if screen.isInApp, userOnlyLeft { update.replaced = screen }
            if screen.isInline, !next.isInline { rowBeneath = screen }
            screen = next
        case .clear:
            if screen.isInApp {
                update.dismissed = screen
                clearScreen()
            } else if let row = rowBeneath {
                // The system dialog is iOS's: the row beneath it goes.
                update.dismissed = row
                screen = .nothing
                rowBeneath = nil
            } else {
                update.nothingToDismiss = true
                screen = .nothing
            }
        case .keep:
            // The app's own UI stays until answered or dismissed; a system dialog no longer up is
            // gone, and the row beneath it is there again.
            if screen.isInApp {
                if userOnlyLeft { update.kept = screen }
            } else {
                clearScreen()
            }
        }
        if let row = Screen.row(after: outcome) { place(row) }
        if case .openSettings = outcome.finalDecision.action {
            device.isInForeground = false
            update.openedSettings = true
        }
        return update
    }

    /// Puts a decision's `row` on the app's screen (`.nothing`: takes the row away): beneath
    /// the modal on top (the app's own or the system dialog), else in place of the row or
    /// nothing there.
    private mutating func place(_ row: Screen) {
        if screen == .systemDialog || (screen.isInApp && !screen.isInline) {
            rowBeneath = row == .nothing ? nil : row
        } else {
            screen = row
        }
    }

    /// The user answered what was on top: it is gone, and the row beneath it, if any, is on
    /// screen again.
    public mutating func clearScreen() {
        screen = rowBeneath ?? .nothing
        rowBeneath = nil
    }
}
