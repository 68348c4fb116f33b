import Foundation
import PermitCore
import PermitInput

/// One run of a scenario: the clock, the simulated device, what the app keeps between its
/// launches, and the app's process while it runs, advanced one step at a time. Each kind of
/// step has its own function.
///
/// What persists across processes lives here: the device (settings, pending reminders, the
/// system dialog, the Keychain, which holds the ledger's durable part), the ledger store, and
/// the storage of the updatable policy. What a process holds lives in `ScenarioProcess`.
struct ScenarioPlayback {
    let scenario: Scenario
    /// The policy of the first process, which the scenario's params, events and arms are
    /// checked against.
    let policy: any Policy
    /// Makes the policy of each later process (a fresh VM: a cold start); `nil` runs
    /// `policy` in every process.
    let relaunch: PolicyFactory?
    let clock: ManualClock
    let device: SimulatedDevice
    let configuration: EngineConfiguration
    /// The app's saved ledger, which each process's engine loads (a reinstall empties it).
    let ledgerStore: InMemoryLedgerStore
    /// With `policy_update` steps each process runs an updatable policy over the scenario's
    /// policy, as an app receiving bundles does, rebuilt from what earlier processes installed.
    let updates: PolicyUpdates?
    /// The app's process; `nil` after `terminate` or a reinstall until an `app_launch`.
    var process: ScenarioProcess?
    /// What the process has on screen (nothing when none runs).
    var screen = Screen.nothing
    /// The status the last process read, reported while none runs.
    private var statusWhenEnded = PermissionStatus.unknown
    /// A time-zone change while the app was in the background (suspended): iOS queues the
    /// significant-time-change notification until the app returns to the foreground, and
    /// coalesces several into one (docs/platform.md Z-02); so do midnight and a daylight-saving
    /// switch (Z-03). Gone with the process.
    var queuedTimeChange: TimeZone?

    /// Sets up the device and the first process. Setup problems the file causes (params the
    /// policy does not take, an initial state iOS cannot be in) are input errors.
    init(
        _ scenario: Scenario, policy: any Policy, relaunch: PolicyFactory? = nil, delivery: (any PolicyDelivery)?
    ) throws(InputError) {
        do {
            try policy.validate(params: scenario.params)
        } catch {
            throw InputError(error.message, at: scenario.paramsLocation, field: error.field ?? "params")
        }
        try Self.checkEvents(of: scenario, declared: policy.declaredEvents)
        for (experiment, arm) in scenario.arms.sorted(by: { $0.key < $1.key }) {
            if let problem = ArmAssignment.problem(withPin: experiment, arm: arm, in: policy.experiments) {
                throw InputError(problem, at: scenario.armLocations[experiment], field: "user.arms.\(experiment)")
            }
        }
        self.scenario = scenario
        self.policy = policy
        self.relaunch = relaunch
        clock = ManualClock(scenario.start)
        device = try Self.device(for: scenario, clock: clock)
        configuration = EngineConfiguration(
            maxPromptsPerDay: scenario.maxPromptsPerDay, locale: scenario.device.locale,
            timeZone: scenario.device.timeZone, userBucket: scenario.userBucket, params: scenario.params,
            foregroundRechecks: [], installID: scenario.initial.ledger.installID ?? Self.installID, arms: scenario.arms)
        ledgerStore = InMemoryLedgerStore(scenario.initial.ledger)
        updates = try PolicyUpdates(scenario, clock: clock, delivery: delivery)
        // The scenario begins with the app's process running.
        process = startProcess(policy: policy)
    }

    /// The install id of a scenario whose `initial.ledger` sets none, so its unpinned arms are
    /// the same on every run (docs/reference/scenarios.md#scenario-user).
    static let installID = "scenario"

    /// Every app event of its own a step sends must be one the policy declares: a typo
    /// (`lesson_complete`) is an error at its step, with "did you mean", not an event the
    /// policy silently ignores.
    static func checkEvents(of scenario: Scenario, declared: [String]) throws(InputError) {
        for step in scenario.steps {
            guard case .event(.custom(let custom)) = step.action, !declared.contains(custom.name) else { continue }
            let known = ScenarioParser.stepEvents + declared
            let hint =
                declared.isEmpty
                ? "the policy declares no events of its own; add events = { \"\(custom.name)\" } to it, or "
                    + Suggestion.hint(for: custom.name, in: known)
                : Suggestion.hint(for: custom.name, in: known)
            throw InputError(
                "step \(step.number): the policy does not declare the event \"\(custom.name)\"", at: step.location,
                field: "event", hint: hint)
        }
    }

    private static func device(for scenario: Scenario, clock: ManualClock) throws(InputError) -> SimulatedDevice {
        let platform = scenario.device.platform
        do {
            var settings: NotificationSettings?
            if !scenario.initial.settings.isEmpty {
                let status =
                    scenario.initial.authorization
                    ?? (platform.capabilities.ephemeral && scenario.device.appClipEphemeral
                        && scenario.device.appClipCardNotifications ? .ephemeral : .notDetermined)
                var base = NotificationSettings.typical(for: status, on: platform.version, entitlements: scenario.device.entitlements)
                for (setting, value) in scenario.initial.settings { base[setting] = value }
                settings = base
            }
            return try SimulatedDevice(
                platform: platform, clock: clock, authorization: scenario.initial.authorization, settings: settings,
                staleReadsAfterChange: scenario.device.staleReads, entitlements: scenario.device.entitlements,
                ephemeralNotifications: scenario.device.appClipEphemeral,
                appClipCardNotifications: scenario.device.appClipCardNotifications,
                scheduledSummary: scenario.device.scheduledSummary, pendingOverflow: scenario.device.pendingOverflow,
                timeZone: scenario.device.timeZone, dialogOnBackground: scenario.device.dialogOnBackground,
                liveActivities: scenario.device.liveActivities)
        } catch {
            throw InputError(error.description, at: scenario.initial.location, field: "initial")
        }
    }

    /// A new process: a fresh engine that loads the saved ledger, over `policy` (or the
    /// updatable policy rebuilt from its storage), in the device's current time zone.
    private func startProcess(policy: any Policy) -> ScenarioProcess {
        var configuration = configuration
        configuration.timeZone = device.timeZone
        let served = updates?.start(builtIn: policy) ?? policy
        let engine = PermissionEngine(
            policy: served, client: device, platform: device.platform, store: ledgerStore,
            durableStore: device.keychain, clock: clock, configuration: configuration)
        return ScenarioProcess(engine: engine)
    }

    /// Ends the process: its engine, its policy (and the policy's globals) and its screen are
    /// gone; what it saved stays. The app is no longer in the foreground.
    private mutating func endProcess() {
        guard let process else { return }
        statusWhenEnded = process.engine.status
        updates?.end()
        queuedTimeChange = nil
        self.process = nil
        screen = .nothing
        device.isInForeground = false
    }

    /// `app_launch`: iOS starts a new process (didFinishLaunching comes once per process), so
    /// the running one ends first, unless it has handled no event yet (it is no different
    /// from a new one). False when the policy could not be made again.
    private mutating func launchProcess(into result: inout StepResult) -> Bool {
        if let process, !process.handledEvents { return true }
        endProcess()
        let policy: any Policy
        do {
            policy = try relaunch?() ?? self.policy
        } catch {
            result.failures.append("the policy did not load at this launch: \(error.description)")
            return false
        }
        let process = startProcess(policy: policy)
        var note = "a new process: the engine and the policy start afresh from what the app saved"
        if process.engine.restoredDurablePart { note += "; the ledger's durable part came back from the Keychain" }
        result.notes.append(note)
        self.process = process
        return true
    }

    /// What an event heard before the step's own shows: a prompt it decided is on screen.
    mutating func showEarlier(_ outcome: Outcome) {
        let next = Screen(after: outcome)
        if next != .nothing { screen = next }
    }

    /// The running process's engine; a step that needs one where none runs fails (the
    /// parser refuses such scenarios, so only one built in code gets here).
    private func engine(into result: inout StepResult) -> PermissionEngine? {
        guard let engine = process?.engine else {
            result.failures.append("the app is not running: add an app_launch step before this one")
            result.status = statusWhenEnded
            return nil
        }
        return engine
    }

    /// The status as the running process last read it, or as the last one did.
    private var status: PermissionStatus { process?.engine.status ?? statusWhenEnded }

    /// Plays one step and checks its expectations. `aborts` is true when the step could not be
    /// carried out, which ends the scenario.
    mutating func play(_ step: Scenario.Step) async -> (result: StepResult, aborts: Bool) {
        let heard = await passTime(TimeInterval(step.after))
        var result = StepResult(
            number: step.number, location: step.location, action: step.action.summary,
            time: Int64(clock.now().timeIntervalSince1970), outcome: nil, status: .unknown, pendingReminders: 0,
            failures: [], notes: heard.notes)
        result.earlierOutcomes = heard.outcomes
        for outcome in heard.outcomes { showEarlier(outcome) }
        if let blocked = screen.refusal(of: step.action, appInForeground: device.isInForeground) {
            result.failures.append(blocked)
            result.status = status
            return (result, true)
        }
        guard await perform(step, into: &result) else { return (result, true) }
        if result.outcome != nil { process?.handledEvents = true }
        // What the updatable policy did on its own (the circuit breaker) shows as notes.
        if let updates { result.notes += updates.takeNewEvents() }
        // A dialog kept while the app was away is on screen again when it returns.
        let dialogKept = screen == .systemDialog && device.isDialogOnScreen
        if let outcome = result.outcome, !dialogKept {
            let next = Screen(after: outcome)
            // The app's own prompt or row survives leaving and coming back: the screen it is on
            // is still there, unless the policy shows something else.
            if next != .nothing || !screen.isInApp || !step.action.keepsAppScreen {
                if screen.isInApp, next != .nothing, step.action.keepsAppScreen {
                    result.notes.append("\(screen.name) on screen was replaced by what this event shows")
                }
                screen = next
            } else if case .event(.appForeground) = step.action {
                result.notes.append("\(screen.name) is still on screen, as the user left it")
            }
            if let granted = outcome.immediateAnswer {
                result.notes.append(
                    "no dialog could show: iOS answered at once (\(granted ? "granted" : "not granted")); status now \(outcome.statusAfter)"
                )
            }
            if case .openSettings(let link) = outcome.finalDecision.action {
                device.isInForeground = false
                result.notes.append(
                    "the app opens Settings (\(link.rawValue)) at once; the user is in Settings, the app in the background")
            }
        }
        if let outcome = result.outcome, !outcome.remindersScheduled.isEmpty, device.settings.scheduledDelivery == .enabled {
            result.notes.append(
                "Scheduled Summary is on for the app: iOS holds these reminders for the user's next summary "
                    + "(time-sensitive and critical ones come at their time)")
        }
        result.status = status
        let pending = device.pending
        result.pendingReminders = pending.count
        result.pendingLocalTimes = pending.map { ExpectationCheck.localTime(of: $0.fireDate, in: device.timeZone) }
        let ledger = await process?.engine.history ?? ledgerStore.ledger
        result.failures += ExpectationCheck.failures(
            step.expectations, against: result, ledger: ledger, timeZone: device.timeZone)
        result.failures += ExpectationCheck.settings(step.expectations.settings, device.settings)
        return (result, false)
    }

    /// Carries out the step's action; false when it could not be.
    private mutating func perform(_ step: Scenario.Step, into result: inout StepResult) async -> Bool {
        switch step.action {
        case .event(let event):
            if case .appLaunch = event {
                let onScreen = screen
                guard launchProcess(into: &result) else { return false }
                if onScreen.isInApp, screen == .nothing {
                    result.notes.append("\(onScreen.name) on screen went with the old process, unanswered")
                }
                device.launch()
            }
            guard let engine = engine(into: &result) else { return false }
            await send(event, to: engine, into: &result)
        case .answer(let answer):
            guard let engine = engine(into: &result) else { return false }
            return await answerScreen(with: answer, engine: engine, into: &result)
        case .settings(let authorization, let settings):
            return changeSettings(authorization: authorization, settings: settings, into: &result)
        case .reinstall(let remembers, let keychainSurvives, let uninstalledFor):
            reinstall(
                systemRemembers: remembers, keychainSurvives: keychainSurvives,
                uninstalledFor: TimeInterval(uninstalledFor ?? step.after), into: &result)
        case .provisionalKeep(let choice):
            return keepProvisional(choice, into: &result)
        case .policyUpdate(let url):
            guard engine(into: &result) != nil else { return false }
            installUpdate(url, expected: step.expectations.update, into: &result)
        case .externalRequest(let allow):
            guard engine(into: &result) != nil else { return false }
            externalRequest(allow: allow, into: &result)
        case .timeZone(let zone):
            device.changeTimeZone(to: zone)
            result.notes.append("the device is now in \(zone.permitIdentifier); pending reminders keep their wall-clock times")
            if let engine = process?.engine, device.isInForeground {
                result.outcome = await engine.handle(.significantTimeChange(timeZone: zone))
            } else if process != nil {
                queuedTimeChange = zone
                result.notes.append(
                    "the app is in the background (suspended): iOS queues significant_time_change until it returns to the foreground")
            } else {
                result.notes.append("the app is not running: it finds the new zone at its next launch")
            }
        case .openSettingsLink:
            guard let engine = engine(into: &result) else { return false }
            return await openSettingsLink(engine: engine, into: &result)
        case .terminate:
            let onScreen = screen
            endProcess()
            var note =
                "the app's process ended: its engine, its policy's globals and its screen are gone; "
                + "the next app_launch is a cold start"
            if onScreen != .nothing { note += " (\(onScreen.name) on screen went with it, unanswered)" }
            result.notes.append(note)
        case .wait:
            break
        }
        return true
    }

    /// `external_request:` another SDK asks; Permit hears nothing and learns at its next read.
    private func externalRequest(allow: Bool, into result: inout StepResult) {
        switch device.externalRequest(allow: allow) {
        case .dialogAnswered(let granted):
            result.externalDialogShown = true
            result.notes.append(
                "another SDK's request showed the system dialog; the user tapped \(granted ? "Allow" : "Don't Allow")"
                    + " (the app learns it at its next read)")
        case .noDialog:
            result.externalDialogShown = false
            result.notes.append("another SDK's request showed no dialog: iOS answered it at once, nothing changed")
        }
    }

    /// `open_settings_link:` the user taps the app's link in Settings; the app opens to it.
    private mutating func openSettingsLink(engine: PermissionEngine, into result: inout StepResult) async -> Bool {
        do {
            try device.openAppSettingsLink()
        } catch {
            result.failures.append("cannot open the app's notification settings: \(error.description)")
            result.status = engine.status
            return false
        }
        await deliverQueuedTimeChange(to: engine, into: &result)
        result.outcome = await engine.handle(.notificationSettingsOpened)
        return true
    }

    /// The app is back in the foreground: a significant time change queued while it was
    /// suspended reaches it first (one, with the zone the device is in now). Its outcome is
    /// kept with the step (`earlierOutcomes`): its trace, warnings and errors, and a prompt it
    /// decided, which is on screen as the app returns (docs/platform.md Z-02).
    private mutating func deliverQueuedTimeChange(to engine: PermissionEngine, into result: inout StepResult) async {
        guard let zone = queuedTimeChange else { return }
        queuedTimeChange = nil
        let outcome = await engine.handle(.significantTimeChange(timeZone: zone))
        result.earlierOutcomes.append(outcome)
        showEarlier(outcome)
        result.notes.append(
            "the significant_time_change queued while the app was suspended arrives first (\(zone.permitIdentifier)); "
                + "the policy decided \(outcome.decision.action.name)")
    }

    /// `event:` goes to the engine; launching and foregrounding bring the app to the front.
    /// Leaving with the system dialog up closes it unanswered, dismisses it as Don't Allow, or
    /// keeps it for the return (`device.dialog_on_background`).
    private mutating func send(_ event: AppEvent, to engine: PermissionEngine, into result: inout StepResult) async {
        switch event {
        case .appLaunch, .appForeground:
            device.isInForeground = true
            await deliverQueuedTimeChange(to: engine, into: &result)
        case .appBackground:
            switch device.moveToBackground() {
            case .dialogDenied, .dialogDismissed:
                // The critical-alerts dialog (S-02) leaves the app authorized: its request
                // completes as granted, as when it is answered.
                let authorization = device.authorization
                _ = await engine.handle(event)
                switch authorization {
                case .denied: result.notes.append("leaving the app dismissed the system dialog: iOS counts it as Don't Allow")
                case .authorized:
                    result.notes.append("leaving the app closed the critical-alerts dialog; the app stays authorized")
                default:
                    result.notes.append(
                        "leaving the app closed the system dialog unanswered: the request completes with granted false, "
                            + "the status stays not determined, and the app may ask again")
                }
                result.outcome = await engine.handle(.systemPromptAnswered(granted: authorization == .authorized))
                return
            case .noDialog, .dialogStays: break
            }
            if device.isDialogOnScreen { result.notes.append("the system dialog stays, unanswered, for the user's return") }
            if screen.isInApp { result.notes.append("\(screen.name) stays on its screen for the user's return") }
        default: break
        }
        result.outcome = await engine.handle(event)
    }

    /// `answer:` answers what is on screen (a dialog through the device) and sends the event.
    private mutating func answerScreen(
        with answer: Scenario.Answer, engine: PermissionEngine, into result: inout StepResult
    ) async -> Bool {
        do {
            let event = try screen.event(answering: answer, on: device)
            if answer == .open {
                device.isInForeground = false
                result.notes.append("the user leaves for Settings (the app is in the background)")
            }
            screen = .nothing
            result.outcome = await engine.handle(event)
            return true
        } catch {
            result.failures.append(error.description)
            return false
        }
    }

    /// `settings:` changes the device in the Settings app, as a user would.
    private func changeSettings(
        authorization: PermissionStatus?, settings: [NotificationSettings.Setting: SettingValue],
        into result: inout StepResult
    ) -> Bool {
        do {
            try device.changeInSettings(authorization: authorization, settings: settings)
            return true
        } catch {
            result.failures.append("cannot change Settings: \(error.description)")
            result.status = status
            return false
        }
    }

    /// `reinstall:` ends the process and wipes the app's storage (the saved ledger and what
    /// the updatable policy installed); the system may remember, and the Keychain (the
    /// durable part of the ledger) survives unless the step says otherwise. The app runs again
    /// at the next `app_launch`.
    private mutating func reinstall(
        systemRemembers chosen: Bool?, keychainSurvives: Bool, uninstalledFor deletedFor: TimeInterval, into result: inout StepResult
    ) {
        let remembers = chosen ?? Self.systemRemembers(on: device.platform.version, deletedFor: deletedFor)
        endProcess()
        device.reinstall(systemRemembers: remembers, keychainSurvives: keychainSurvives)
        device.isInForeground = false
        try? ledgerStore.save(Ledger())
        updates?.reinstall()
        statusWhenEnded = .unknown
        var note = "reinstalled; the app's storage is wiped and the system \(remembers ? "remembers" : "forgets") the old answer"
        if chosen == nil {
            note +=
                device.platform.version < OSVersion(major: 10)
                ? " (iOS 8–9: it forgets once the app stays deleted for a day; this one was deleted for "
                    + "\(InputDuration.text(Int64(deletedFor))))" : " (iOS 10+: a reinstall asks again)"
        }
        if !keychainSurvives { note += "; the Keychain is wiped too" }
        result.notes.append(note)
    }

    /// What the system does with the notification answer at a reinstall that does not say
    /// (docs/platform.md K-01, I-01): iOS 8–9 keeps it unless the app stayed deleted for at
    /// least a day; iOS 10+ forgets it, and the dialog can show again.
    static func systemRemembers(on version: OSVersion, deletedFor gap: TimeInterval) -> Bool {
        version < OSVersion(major: 10) && gap < TimeInterval(Ledger.systemMemory)
    }

    /// `provisional_keep:` the user taps Keep on a quiet notification and picks how it is
    /// delivered (docs/platform.md P-02); the app is not told and reads it at its next read.
    private func keepProvisional(_ choice: ProvisionalKeep, into result: inout StepResult) -> Bool {
        do {
            try device.keepProvisional(choice)
        } catch {
            result.failures.append("cannot keep the quiet notifications: \(error.description)")
            result.status = status
            return false
        }
        let how = choice == .deliverImmediately ? "Deliver Immediately" : "Deliver in Scheduled Summary"
        result.notes.append(
            "the user tapped Keep › \(how) on a quiet notification: iOS now reports authorized, without alerts, sounds or badges"
                + " (the app learns it at its next read)")
        return true
    }

    /// `policy_update:` installs a bundle between events, checked against `expect_update`.
    private func installUpdate(_ url: URL, expected: Scenario.ExpectedUpdate?, into result: inout StepResult) {
        // `updates` exists whenever the scenario has a policy_update step.
        let update = updates!.install(url)
        result.notes.append(update.note)
        if let failure = update.failure(against: expected) { result.failures.append(failure) }
    }
}

extension Scenario.Action {
    /// What the step does, in words, for reports (`event app_launch`, `answer allow`, ...).
    var summary: String {
        switch self {
        case .event(let event): event.description
        case .answer(let answer): "answer \(answer.rawValue)"
        case .settings(let authorization, let settings):
            "settings "
                + ((authorization.map { ["authorization=\($0)"] } ?? [])
                + settings.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" })
                .joined(separator: " ")
        case .reinstall(let remembers, let keychainSurvives, let uninstalledFor):
            "reinstall" + (remembers.map { $0 ? " (system remembers)" : " (system forgets)" } ?? "")
                + (keychainSurvives ? "" : " (Keychain wiped)")
                + (uninstalledFor.map { " (uninstalled for \(InputDuration.text($0)))" } ?? "")
        case .provisionalKeep(let choice): "provisional_keep \(choice.rawValue)"
        case .wait: "wait"
        case .policyUpdate(let url): "policy_update \(url.lastPathComponent)"
        case .externalRequest(let allow): "external_request \(allow ? "allow" : "deny")"
        case .timeZone(let zone): "timezone \(zone.permitIdentifier)"
        case .openSettingsLink: "open_settings_link"
        case .terminate: "terminate"
        }
    }

    /// The step's key in the scenario file (`event`, `answer`, `terminate`, ...).
    var key: String {
        switch self {
        case .event: "event"
        case .answer: "answer"
        case .settings: "settings"
        case .reinstall: "reinstall"
        case .provisionalKeep: "provisional_keep"
        case .wait: "after"
        case .policyUpdate: "policy_update"
        case .externalRequest: "external_request"
        case .timeZone: "timezone"
        case .openSettingsLink: "open_settings_link"
        case .terminate: "terminate"
        }
    }
}

extension Scenario.Action {
    /// Whether the app's screen is as the user left it after this step: leaving the app and
    /// coming back do not change it, so the app's own prompt or row is still there.
    var keepsAppScreen: Bool {
        switch self {
        case .event(.appBackground), .event(.appForeground), .wait: true
        default: false
        }
    }
}

extension Scenario.Expectations {
    /// Whether the step expects nothing of a decision of its own (only of the state after it).
    var decidesNothing: Bool {
        decision == nil && reason == nil && warnings == nil && error == nil && dialog == nil && reminders == nil
            && remoteRegistration == nil && trace == nil
    }
}
