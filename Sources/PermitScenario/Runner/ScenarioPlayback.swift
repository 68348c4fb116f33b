import Foundation
import PermitCore
import PermitInput

/// One run of a scenario: the clock, the simulated device, the engine and what is on screen,
/// advanced one step at a time. Each kind of step has its own function.
struct ScenarioPlayback {
    let scenario: Scenario
    let policy: any Policy
    let clock: ManualClock
    let device: SimulatedDevice
    let configuration: EngineConfiguration
    /// With `policy_update` steps the engine runs an updatable policy over the scenario's
    /// policy, as an app receiving bundles does.
    let updates: PolicyUpdates?
    private(set) var engine: PermissionEngine
    private(set) var screen = Screen.nothing

    /// Sets up the device and the engine. Setup problems the file causes (params the policy
    /// does not take, an initial state iOS cannot be in) are input errors.
    init(_ scenario: Scenario, policy: any Policy, delivery: (any PolicyDelivery)?) throws(InputError) {
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
        clock = ManualClock(scenario.start)
        device = try Self.device(for: scenario, clock: clock)
        configuration = EngineConfiguration(
            maxPromptsPerDay: scenario.maxPromptsPerDay, locale: scenario.device.locale,
            timeZone: scenario.device.timeZone, userBucket: scenario.userBucket, params: scenario.params,
            foregroundRechecks: [], installID: scenario.initial.ledger.installID ?? Self.installID, arms: scenario.arms)
        updates = try PolicyUpdates(scenario, builtIn: policy, clock: clock, delivery: delivery)
        engine = Self.engine(
            ledger: scenario.initial.ledger, policy: updates?.reset() ?? policy, device: device, clock: clock,
            configuration: configuration)
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
                    ?? (platform.capabilities.ephemeral && scenario.device.appClipEphemeral ? .ephemeral : .notDetermined)
                var base = NotificationSettings.typical(for: status, on: platform.version, entitlements: scenario.device.entitlements)
                for (setting, value) in scenario.initial.settings { base[setting] = value }
                settings = base
            }
            return try SimulatedDevice(
                platform: platform, clock: clock, authorization: scenario.initial.authorization, settings: settings,
                staleReadsAfterChange: scenario.device.staleReads, entitlements: scenario.device.entitlements,
                ephemeralNotifications: scenario.device.appClipEphemeral, pendingOverflow: scenario.device.pendingOverflow,
                timeZone: scenario.device.timeZone, dialogOnBackground: scenario.device.dialogOnBackground)
        } catch {
            throw InputError(error.description, at: scenario.initial.location, field: "initial")
        }
    }

    private static func engine(
        ledger: Ledger, policy: any Policy, device: SimulatedDevice, clock: ManualClock,
        configuration: EngineConfiguration
    ) -> PermissionEngine {
        PermissionEngine(
            policy: policy, client: device, platform: device.platform, store: InMemoryLedgerStore(ledger),
            durableStore: device.keychain, clock: clock,
            configuration: configuration)
    }

    /// Plays one step and checks its expectations. `aborts` is true when the step could not be
    /// carried out, which ends the scenario.
    mutating func play(_ step: Scenario.Step) async -> (result: StepResult, aborts: Bool) {
        clock.advance(by: TimeInterval(step.after))
        var result = StepResult(
            number: step.number, location: step.location, action: step.action.summary,
            time: Int64(clock.now().timeIntervalSince1970), outcome: nil, status: .unknown, pendingReminders: 0,
            failures: [], notes: [])
        if let blocked = screen.refusal(of: step.action, appInForeground: device.isInForeground) {
            result.failures.append(blocked)
            result.status = engine.status
            return (result, true)
        }
        guard await perform(step, into: &result) else { return (result, true) }
        // What the updatable policy did on its own (the circuit breaker) shows as notes.
        if let updates { result.notes += updates.takeNewEvents() }
        // A dialog kept while the app was away is on screen again when it returns.
        let dialogKept = screen == .systemDialog && device.isDialogOnScreen
        if let outcome = result.outcome, !dialogKept {
            screen = Screen(after: outcome)
            if let granted = outcome.immediateAnswer {
                result.notes.append(
                    "no dialog could show: iOS answered at once (\(granted ? "granted" : "not granted")); status now \(outcome.statusAfter)"
                )
            }
        }
        result.status = engine.status
        let pending = device.pending
        result.pendingReminders = pending.count
        result.pendingLocalTimes = pending.map { ExpectationCheck.localTime(of: $0.fireDate, in: device.timeZone) }
        result.failures += ExpectationCheck.failures(
            step.expectations, against: result, ledger: await engine.history, timeZone: device.timeZone)
        result.failures += ExpectationCheck.settings(step.expectations.settings, device.settings)
        return (result, false)
    }

    /// Carries out the step's action; false when it could not be.
    private mutating func perform(_ step: Scenario.Step, into result: inout StepResult) async -> Bool {
        switch step.action {
        case .event(let event):
            if case .appLaunch = event { device.launch() }
            await send(event, into: &result)
        case .answer(let answer):
            return await answerScreen(with: answer, into: &result)
        case .settings(let authorization, let settings):
            return changeSettings(authorization: authorization, settings: settings, into: &result)
        case .reinstall(let remembers, let keychainSurvives):
            reinstall(systemRemembers: remembers, keychainSurvives: keychainSurvives, into: &result)
        case .policyUpdate(let url):
            installUpdate(url, expected: step.expectations.update, into: &result)
        case .externalRequest(let allow):
            externalRequest(allow: allow, into: &result)
        case .timeZone(let zone):
            device.changeTimeZone(to: zone)
            result.notes.append("the device is now in \(zone.permitIdentifier); pending reminders keep their wall-clock times")
            result.outcome = await engine.handle(.significantTimeChange(timeZone: zone))
        case .openSettingsLink:
            return await openSettingsLink(into: &result)
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
    private func openSettingsLink(into result: inout StepResult) async -> Bool {
        do {
            try device.openAppSettingsLink()
        } catch {
            result.failures.append("cannot open the app's notification settings: \(error.description)")
            result.status = engine.status
            return false
        }
        result.outcome = await engine.handle(.notificationSettingsOpened)
        return true
    }

    /// `event:` goes to the engine; launching and foregrounding bring the app to the front.
    /// Leaving with the system dialog up dismisses it as Don't Allow, or keeps it for the
    /// return (`device.dialog_on_background`).
    private func send(_ event: AppEvent, into result: inout StepResult) async {
        switch event {
        case .appLaunch, .appForeground: device.isInForeground = true
        case .appBackground:
            if device.moveToBackground() == .dialogDenied {
                _ = await engine.handle(event)
                result.notes.append("leaving the app dismissed the system dialog: iOS counts it as Don't Allow")
                result.outcome = await engine.handle(.systemPromptAnswered(granted: false))
                return
            }
            if device.isDialogOnScreen { result.notes.append("the system dialog stays, unanswered, for the user's return") }
        default: break
        }
        result.outcome = await engine.handle(event)
    }

    /// `answer:` answers what is on screen (a dialog through the device) and sends the event.
    private mutating func answerScreen(with answer: Scenario.Answer, into result: inout StepResult) async -> Bool {
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
            result.status = engine.status
            return false
        }
    }

    /// `reinstall:` wipes the app's storage (and its updatable policy); the system may remember,
    /// and the Keychain (the durable part of the ledger) survives unless the step says otherwise.
    private mutating func reinstall(systemRemembers remembers: Bool, keychainSurvives: Bool, into result: inout StepResult) {
        device.reinstall(systemRemembers: remembers, keychainSurvives: keychainSurvives)
        engine = Self.engine(
            ledger: Ledger(), policy: updates?.reset() ?? policy, device: device, clock: clock, configuration: configuration)
        var note = "reinstalled; the app's storage is wiped and the system \(remembers ? "remembers" : "forgets") the old answer"
        if !keychainSurvives {
            note += "; the Keychain is wiped too"
        } else if engine.restoredDurablePart {
            note += "; the ledger's durable part came back from the Keychain"
        }
        result.notes.append(note)
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
        case .reinstall(let remembers, let keychainSurvives):
            "reinstall" + (remembers ? " (system remembers)" : "") + (keychainSurvives ? "" : " (Keychain wiped)")
        case .wait: "wait"
        case .policyUpdate(let url): "policy_update \(url.lastPathComponent)"
        case .externalRequest(let allow): "external_request \(allow ? "allow" : "deny")"
        case .timeZone(let zone): "timezone \(zone.permitIdentifier)"
        case .openSettingsLink: "open_settings_link"
        }
    }
}
