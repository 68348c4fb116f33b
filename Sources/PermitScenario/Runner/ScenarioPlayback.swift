import Foundation
import PermitCore
import PermitInput
import PermitSimulator

/// One run of a scenario: the simulated app (`SimulatedApp`: the clock, the device, what the
/// app keeps between its launches, and its process while it runs), advanced one step at a
/// time. Each kind of step has its own function, which turns the step into the app's calls and
/// the facts they return into the step's notes.
struct ScenarioPlayback {
    let scenario: Scenario
    /// The policy of the first process, which the scenario's params, events and arms are
    /// checked against.
    let policy: any Policy
    /// With `policy_update` steps each process runs an updatable policy over the scenario's
    /// policy, as an app receiving bundles does, rebuilt from what earlier processes installed.
    let updates: PolicyUpdates?
    /// The app on the simulated iPhone.
    private(set) var app: SimulatedApp
    private var device: SimulatedDevice { app.device }

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
        let clock = ManualClock(scenario.start)
        let device = try Self.device(for: scenario, clock: clock)
        let configuration = EngineConfiguration(
            maxPromptsPerDay: scenario.maxPromptsPerDay, locale: scenario.device.locale,
            timeZone: scenario.device.timeZone, userBucket: scenario.userBucket, params: scenario.params,
            foregroundRechecks: [], installID: scenario.initial.ledger.installID ?? Self.installID, arms: scenario.arms,
            appVersion: scenario.device.appVersion, appName: scenario.device.appName)
        let updates = try PolicyUpdates(scenario, clock: clock, delivery: delivery)
        self.updates = updates
        app = SimulatedApp(
            device: device, clock: clock, files: AppFiles(scenario.initial.ledger), configuration: configuration,
            policies: ScenarioPolicies(first: policy, relaunch: relaunch, updates: updates))
        // The scenario begins with the app's process running, on the policy already loaded.
        try? app.startProcess()
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

    /// `app_launch`: iOS starts a new process (didFinishLaunching comes once per process), so
    /// the running one ends first, unless it has handled no event yet. False when the policy
    /// could not be made again.
    private mutating func launchProcess(into result: inout StepResult) async -> Bool {
        let launch: SimulatedApp.Launch
        do {
            launch = try await app.launch()
        } catch {
            result.failures.append("the policy did not load at this launch: \(error.description)")
            return false
        }
        if launch.newProcess {
            var note = "a new process: the engine and the policy start afresh from what the app saved"
            if launch.restoredDurablePart { note += "; the ledger's durable part came back from the Keychain" }
            result.notes.append(note)
        }
        if let lost = launch.screenLost { result.notes.append("\(lost.name) on screen went with the old process, unanswered") }
        return true
    }

    /// The running process's engine; a step that needs one where none runs fails (the
    /// parser refuses such scenarios, so only one built in code gets here).
    private func engine(into result: inout StepResult) -> PermissionEngine? {
        guard let engine = app.engine else {
            result.failures.append("the app is not running: add an app_launch step before this one")
            result.status = app.status
            return nil
        }
        return engine
    }

    /// Plays one step and checks its expectations. `aborts` is true when the step could not be
    /// carried out, which ends the scenario.
    mutating func play(_ step: Scenario.Step) async -> (result: StepResult, aborts: Bool) {
        let passed = await app.passTime(TimeInterval(step.after))
        var result = StepResult(
            number: step.number, location: step.location, action: step.action.summary,
            time: Int64(app.clock.now().timeIntervalSince1970), outcome: nil, status: .unknown, pendingReminders: 0,
            failures: [], notes: [])
        if let note = Self.note(for: passed, in: device.timeZone) { result.notes.append(note) }
        for heard in passed.heard { keepEarlier(heard, into: &result) }
        if let blocked = app.screen.refusal(of: step.action, appInForeground: device.isInForeground) {
            result.failures.append(blocked)
            result.status = app.status
            return (result, true)
        }
        let postedBefore = device.posted.count
        guard await perform(step, into: &result) else { return (result, true) }
        result.notified = Array(device.posted.dropFirst(postedBefore))
        // What the updatable policy did on its own (the circuit breaker) shows as notes.
        if let updates { result.notes += updates.takeNewEvents() }
        // A dialog kept while the app was away is on screen again when it returns: then the
        // outcome changes nothing on screen.
        if let outcome = result.outcome, let update = app.show(after: outcome, userOnlyLeft: step.action.keepsAppScreen) {
            if let dismissed = update.dismissed {
                result.notes.append(
                    "\(dismissed.name) was taken off screen (dismiss)"
                        + (app.screen.isInline ? "; \(app.screen.name) beneath it is on screen again" : ""))
            } else if update.nothingToDismiss {
                result.notes.append("dismiss: none of the app's own prompts, rows or pages was on screen, so nothing changed")
            }
            if let replaced = update.replaced {
                result.notes.append("\(replaced.name) on screen was replaced by what this event shows")
            } else if let kept = update.kept, case .event(.appForeground) = step.action {
                result.notes.append("\(kept.name) is still on screen, as the user left it")
            }
            if let granted = outcome.immediateAnswer {
                result.notes.append(
                    "no dialog could show: iOS answered at once (\(granted ? "granted" : "not granted")); status now \(outcome.statusAfter)"
                )
            }
            if update.openedSettings, case .openSettings(let link) = outcome.finalDecision.action {
                result.notes.append(
                    "the app opens Settings (\(link.rawValue)) at once; the user is in Settings, the app in the background")
            }
        }
        if let outcome = result.outcome, !outcome.remindersScheduled.isEmpty, device.settings.scheduledDelivery == .enabled {
            result.notes.append(
                "Scheduled Summary is on for the app: iOS holds these reminders for the user's next summary "
                    + "(time-sensitive and critical ones come at their time)")
        }
        result.status = app.status
        result.screen = app.screen.key
        result.rowBeneath = app.rowBeneath?.key
        let pending = device.pending
        result.pendingReminders = pending.count
        result.pendingLocalTimes = pending.map { ExpectationCheck.localTime(of: $0.fireDate, in: device.timeZone) }
        let ledger = await app.engine?.history ?? app.files.ledger
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
                guard await launchProcess(into: &result) else { return false }
            }
            guard let engine = engine(into: &result) else { return false }
            if case .backgroundRefresh = event { return await refreshInBackground(engine: engine, into: &result) }
            await send(event, to: engine, into: &result)
        case .answer(let answer):
            guard let engine = engine(into: &result) else { return false }
            return await answerScreen(with: answer, engine: engine, into: &result)
        case .settings(let authorization, let settings):
            return changeSettings(authorization: authorization, settings: settings, into: &result)
        case .reinstall(let remembers, let keychainSurvives, let uninstalledFor):
            await reinstall(
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
            let change = await app.changeTimeZone(to: zone)
            result.notes.append("the device is now in \(zone.permitIdentifier); pending reminders keep their wall-clock times")
            switch change {
            case .heard(let outcome):
                result.outcome = outcome
            case .queued:
                result.notes.append(
                    "the app is in the background (suspended): iOS queues significant_time_change until it returns to the foreground")
            case .notRunning:
                result.notes.append("the app is not running: it finds the new zone at its next launch")
            }
        case .openSettingsLink:
            guard let engine = engine(into: &result) else { return false }
            return await openSettingsLink(engine: engine, into: &result)
        case .terminate:
            let onScreen = await app.terminate()
            var note =
                "the app's process ended: its engine, its policy's globals and its screen are gone; "
                + "the next app_launch is a cold start"
            if onScreen != .nothing { note += " (\(onScreen.name) on screen went with it, unanswered)" }
            result.notes.append(note)
        case .appUpdate(let version):
            let onScreen = await app.terminate()
            app.configuration.appVersion = version
            var note = "the app was updated to \(version): iOS ended its process; the next app_launch runs the new version"
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
            let opened = try await app.openFromSettingsLink(on: engine)
            note(opened.timeChange, into: &result)
            result.outcome = opened.outcome
            return true
        } catch {
            result.failures.append("cannot open the app's notification settings: \(error.description)")
            result.status = engine.status
            return false
        }
    }

    /// `event: background_refresh`: the app runs in the background; in the foreground the step
    /// cannot happen on an iPhone and the scenario stops there.
    private mutating func refreshInBackground(engine: PermissionEngine, into result: inout StepResult) async -> Bool {
        do {
            result.outcome = try await app.refreshInBackground(on: engine)
            return true
        } catch {
            result.failures.append("cannot run the app in the background: \(error.description)")
            result.status = engine.status
            return false
        }
    }

    /// An event the app heard during the step before its own (a time change): its outcome is
    /// kept with the step (its trace, warnings and errors), and a prompt it decided is on
    /// screen (docs/platform.md Z-02).
    private mutating func keepEarlier(_ outcome: Outcome, into result: inout StepResult) {
        result.earlierOutcomes.append(outcome)
        _ = app.show(after: outcome, userOnlyLeft: true)
    }

    /// The time change queued while the app was suspended, delivered as it came back.
    private mutating func note(_ timeChange: SimulatedApp.DeliveredTimeChange?, into result: inout StepResult) {
        guard let timeChange else { return }
        keepEarlier(timeChange.outcome, into: &result)
        result.notes.append(
            "the significant_time_change queued while the app was suspended arrives first (\(timeChange.zone.permitIdentifier)); "
                + "the policy decided \(timeChange.outcome.decision.action.name)")
    }

    /// `event:` goes to the engine; launching and foregrounding bring the app to the front.
    /// Leaving with the system dialog up closes it unanswered, dismisses it as Don't Allow, or
    /// keeps it for the return (`device.dialog_on_background`).
    private mutating func send(_ event: AppEvent, to engine: PermissionEngine, into result: inout StepResult) async {
        switch event {
        case .appLaunch, .appForeground:
            let foreground = await app.foreground(sending: event, on: engine)
            note(foreground.timeChange, into: &result)
            result.outcome = foreground.outcome
        case .appBackground:
            let left = await app.background(on: engine)
            switch left.dialog {
            case .closed(let authorization):
                switch authorization {
                case .denied: result.notes.append("leaving the app dismissed the system dialog: iOS counts it as Don't Allow")
                case .authorized:
                    result.notes.append("leaving the app closed the critical-alerts dialog; the app stays authorized")
                default:
                    result.notes.append(
                        "leaving the app closed the system dialog unanswered: the request completes with granted false, "
                            + "the status stays not determined, and the app may ask again")
                }
                result.outcome = left.answer
                return
            case .stays:
                result.notes.append("the system dialog stays, unanswered, for the user's return")
            case .none:
                break
            }
            if app.screen.isInApp { result.notes.append("\(app.screen.name) stays on its screen for the user's return") }
            result.outcome = left.outcome
        default:
            result.outcome = await app.send(event, on: engine)
        }
    }

    /// `answer:` answers what is on screen (a dialog through the device) and sends the event.
    private mutating func answerScreen(
        with answer: Scenario.Answer, engine: PermissionEngine, into result: inout StepResult
    ) async -> Bool {
        do {
            let event = try app.screen.event(answering: answer, on: device)
            let stays = app.screen.stays(after: answer)
            if answer == .link {
                // The host's browser, in the app or Safari: a step `event: app_background`
                // follows when the host leaves the app for Safari.
                result.notes.append("the host opens the link's web page; \(app.screen.name) stays on screen for the return")
            }
            if answer == .open {
                app.leaveForSettings()
                result.notes.append(
                    stays
                        ? "the user leaves for Settings (the app is in the background); \(app.screen.name) stays on screen for the return"
                        : "the user leaves for Settings (the app is in the background)")
            } else if stays, answer != .link {
                result.notes.append("\(app.screen.name) stays on its screen: acting on a row does not take it away")
            }
            if !stays {
                let answered = app.screen
                app.clearScreen()
                if app.screen.isInline { result.notes.append("\(app.screen.name) beneath \(answered.name) is on screen again") }
            }
            result.outcome = await app.send(event, on: engine)
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
            try app.changeInSettings(authorization: authorization, settings: settings)
            return true
        } catch {
            result.failures.append("cannot change Settings: \(error.description)")
            result.status = app.status
            return false
        }
    }

    /// `reinstall:` ends the process and wipes the app's storage (the saved ledger and what
    /// the updatable policy installed); the system may remember, and the Keychain (the
    /// durable part of the ledger) survives unless the step says otherwise. The app runs again
    /// at the next `app_launch`.
    private mutating func reinstall(
        systemRemembers chosen: Bool?, keychainSurvives: Bool, uninstalledFor: TimeInterval, into result: inout StepResult
    ) async {
        let done = await app.reinstall(
            systemRemembers: chosen, keychainSurvives: keychainSurvives, uninstalledFor: uninstalledFor)
        var note =
            "reinstalled; the app's storage is wiped and the system \(done.systemRemembers ? "remembers" : "forgets") the old answer"
        if chosen == nil {
            note +=
                device.platform.version < OSVersion(major: 10)
                ? " (iOS 8–9: it forgets once the app stays deleted for a day; this one was deleted for "
                    + "\(InputDuration.text(Int64(uninstalledFor))))" : " (iOS 10+: a reinstall asks again)"
        }
        if !keychainSurvives { note += "; the Keychain is wiped too" }
        result.notes.append(note)
    }

    /// `provisional_keep:` the user taps Keep on a quiet notification and picks how it is
    /// delivered (docs/platform.md P-02); the app is not told and reads it at its next read.
    private func keepProvisional(_ choice: ProvisionalKeep, into result: inout StepResult) -> Bool {
        do {
            try device.keepProvisional(choice)
        } catch {
            result.failures.append("cannot keep the quiet notifications: \(error.description)")
            result.status = app.status
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
        case .appUpdate(let version): "app_update \(version)"
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
        case .appUpdate: "app_update"
        }
    }
}

extension Scenario.Action {
    /// Whether the app's screen is as the user left it after this step: leaving the app, coming
    /// back and running in the background do not change it, so the app's own prompt or row is
    /// still there.
    var keepsAppScreen: Bool {
        switch self {
        case .event(.appBackground), .event(.appForeground), .event(.backgroundRefresh), .wait: true
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
