import Foundation
import PermitCore
import PermitDelivery

/// Plays a scenario against the real engine on a simulated device with an injected clock
/// (docs/reference.md#scenario-steps): a step does one thing; a prompt stays on screen until answered; a system dialog
/// must be answered with allow or deny; reinstall with or without the system remembering.
public struct ScenarioRunner: Sendable {
    public let policy: any Policy

    public init(policy: any Policy) { self.policy = policy }

    /// What is on screen, waiting for an `answer`.
    enum Screen: Equatable {
        case nothing, softPrompt, settingsPrompt, systemDialog

        var answers: [Scenario.Answer] {
            switch self {
            case .nothing: []
            case .softPrompt: [.accept, .decline, .dismiss]
            case .settingsPrompt: [.open, .cancel, .dismiss]
            case .systemDialog: [.allow, .deny]
            }
        }

        var name: String {
            switch self {
            case .nothing: "nothing"
            case .softPrompt: "a soft prompt"
            case .settingsPrompt: "a settings prompt"
            case .systemDialog: "the system dialog"
            }
        }
    }

    /// Runs the scenario. Setup problems the file causes (an initial state iOS cannot be in)
    /// are input errors; everything the policy does is reported in the result.
    public func run(_ scenario: Scenario) async throws(InputError) -> ScenarioResult {
        do {
            try policy.validate(params: scenario.params)
        } catch {
            throw InputError(error.message, at: scenario.paramsLocation, field: error.field ?? "params")
        }
        let clock = ManualClock(scenario.start)
        let platform = scenario.device.platform
        let device: SimulatedDevice
        do {
            var settings: NotificationSettings?
            if !scenario.initial.settings.isEmpty {
                let status = scenario.initial.authorization
                    ?? (platform.capabilities.ephemeral ? .ephemeral : .notDetermined)
                var base = NotificationSettings.typical(for: status, on: platform.version)
                for (setting, value) in scenario.initial.settings { base[setting] = value }
                settings = base
            }
            device = try SimulatedDevice(
                platform: platform, clock: clock, authorization: scenario.initial.authorization, settings: settings,
                staleReadsAfterChange: scenario.device.staleReads)
        } catch {
            throw InputError(error.description, at: scenario.initial.location, field: "initial")
        }
        let configuration = EngineConfiguration(
            maxPromptsPerDay: scenario.maxPromptsPerDay, locale: scenario.device.locale,
            timeZone: scenario.device.timeZone, userBucket: scenario.userBucket, params: scenario.params,
            foregroundRechecks: [])
        // With `policy_update` steps the engine runs a policy source over the scenario's policy,
        // as an app receiving bundles does; the source lives in the app, so a reinstall resets it.
        let updates = try PolicyUpdates(scenario, builtIn: policy, clock: clock)
        func makeEngine(_ ledger: Ledger) -> (PermissionEngine, InMemoryLedgerStore) {
            let store = InMemoryLedgerStore(ledger)
            return (PermissionEngine(
                policy: updates?.reset() ?? policy, client: device, platform: platform, store: store, clock: clock,
                configuration: configuration), store)
        }
        var (engine, _) = makeEngine(scenario.initial.ledger)
        var screen = Screen.nothing
        var results: [StepResult] = []
        var aborted: Int?

        for step in scenario.steps {
            clock.advance(by: TimeInterval(step.after))
            var result = StepResult(
                number: step.number, location: step.location, action: describe(step.action),
                time: Int64(clock.now().timeIntervalSince1970), outcome: nil, status: .unknown, pendingReminders: 0,
                failures: [], notes: [])

            // What is on screen decides what the step may do.
            let blocked: String? = {
                if case .answer(let answer) = step.action {
                    if screen == .nothing { return "there is nothing on screen to answer with \(answer.rawValue)" }
                    if !screen.answers.contains(answer) {
                        return "\(screen.name) is on screen; answer it with "
                            + screen.answers.map(\.rawValue).joined(separator: ", ") + ", not \(answer.rawValue)"
                    }
                    return nil
                }
                guard screen != .nothing else { return nil }
                return "\(screen.name) is on screen and stays until answered; this step must be `answer: "
                    + screen.answers.map(\.rawValue).joined(separator: " | ") + "`"
            }()
            if let blocked {
                result.failures.append(blocked)
                result.status = engine.status
                results.append(result)
                aborted = step.number
                break
            }

            switch step.action {
            case .event(let event):
                switch event {
                case .appLaunch, .appForeground: device.isInForeground = true
                case .appBackground: device.isInForeground = false
                default: break
                }
                result.outcome = await engine.handle(event)
            case .answer(let answer):
                do {
                    let event = try answerEvent(answer, on: screen, device: device)
                    if answer == .open {
                        device.isInForeground = false
                        result.notes.append("the user leaves for Settings (the app is in the background)")
                    }
                    screen = .nothing
                    result.outcome = await engine.handle(event)
                } catch {
                    result.failures.append(error.description)
                    results.append(result)
                    aborted = step.number
                }
            case .settings(let authorization, let settings):
                do {
                    try device.changeInSettings(authorization: authorization, settings: settings)
                } catch {
                    result.failures.append("cannot change Settings: \(error.description)")
                    result.status = engine.status
                    results.append(result)
                    aborted = step.number
                }
            case .reinstall(let remembers):
                device.reinstall(systemRemembers: remembers)
                (engine, _) = makeEngine(Ledger())
                result.notes.append("reinstalled; the app's storage is wiped and the system \(remembers ? "remembers" : "forgets") the old answer")
            case .policyUpdate(let url):
                // `updates` exists whenever the scenario has a policy_update step.
                let update = updates!.install(url)
                result.notes.append(update.note)
                if let failure = update.failure(against: step.expectations.update) { result.failures.append(failure) }
            case .wait:
                break
            }
            if aborted != nil { break }
            // What the policy source did on its own (the circuit breaker) shows as notes.
            if let updates { result.notes += updates.takeNewEvents() }

            if let outcome = result.outcome {
                // What is on screen now: the follow-up's decision when the request was answered
                // at once, else the event's own.
                let last = outcome.followUps.last ?? outcome
                switch last.decision.action {
                case .softPrompt: screen = .softPrompt
                case .settingsPrompt: screen = .settingsPrompt
                case .requestPermission: screen = last.dialogShown ? .systemDialog : .nothing
                case .none: screen = .nothing
                }
                if let granted = outcome.immediateAnswer {
                    result.notes.append("no dialog could show: iOS answered at once (\(granted ? "granted" : "not granted")); status now \(outcome.statusAfter)")
                }
            }
            result.status = engine.status
            result.pendingReminders = device.pending.count
            let ledger = await engine.history
            result.failures += check(step.expectations, against: result, ledger: ledger)
            results.append(result)
        }
        return ScenarioResult(
            name: scenario.name, file: scenario.file, policyName: policy.name,
            start: Int64(scenario.start.timeIntervalSince1970), steps: results, abortedAfterStep: aborted,
            totalSteps: scenario.steps.count)
    }

    /// The event an answer sends; a dialog answer taps the simulated device first.
    func answerEvent(_ answer: Scenario.Answer, on screen: Screen, device: SimulatedDevice) throws(SimulatedDeviceError) -> AppEvent {
        switch screen {
        case .softPrompt:
            return .softPromptAnswered(SoftPromptAnswer(rawValue: answer.rawValue)!)
        case .settingsPrompt:
            return .settingsPromptAnswered(SettingsPromptAnswer(rawValue: answer.rawValue)!)
        case .systemDialog, .nothing:
            return .systemPromptAnswered(granted: try device.answerDialog(allow: answer == .allow))
        }
    }

    func describe(_ action: Scenario.Action) -> String {
        switch action {
        case .event(let event): event.description
        case .answer(let answer): "answer \(answer.rawValue)"
        case .settings(let authorization, let settings):
            "settings " + ((authorization.map { ["authorization=\($0)"] } ?? [])
                + settings.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" })
                .joined(separator: " ")
        case .reinstall(let remembers): remembers ? "reinstall (system remembers)" : "reinstall"
        case .wait: "wait"
        case .policyUpdate(let url): "policy_update \(url.lastPathComponent)"
        }
    }

    /// Every expectation of the step, plus the rule that an unexpected warning or policy error
    /// fails it.
    func check(_ expected: Scenario.Expectations, against result: StepResult, ledger: Ledger) -> [String] {
        var failures: [String] = []
        let outcome = result.outcome
        let because = outcome.flatMap { $0.decision.reason ?? $0.proposed?.reason }.map { " (reason: \($0))" } ?? ""

        if let decision = expected.decision, let outcome {
            let actual = DecisionFields.of(outcome.decision)
            switch decision {
            case .action(let name):
                if outcome.decision.action.name != name {
                    failures.append("expected \(name), got \(describeAction(outcome))\(because)")
                }
            case .fields(let fields):
                // A wrong action makes every other field wrong too: report the action alone.
                if let action = fields["action"], actual["action"] != action {
                    failures.append("expected \(action.description.trimmingCharacters(in: ["\""])), got \(describeAction(outcome))\(because)")
                    break
                }
                for (key, value) in fields.sorted(by: { $0.key < $1.key }) where actual[key] != value {
                    let got = actual[key].map(\.description) ?? "nothing"
                    failures.append("decision.\(key): expected \(value), got \(got)\(key == "action" ? because : "")")
                }
            }
        }
        if let status = expected.status, result.status != status {
            failures.append("expected status \(status), got \(result.status)")
        }
        let warnings = outcome?.warnings ?? []
        if let names = expected.warnings {
            if names.sorted() != warnings.map(\.name).sorted() {
                let got = warnings.isEmpty ? "none" : warnings.map(\.description).joined(separator: "; ")
                failures.append("expected warning \(names.joined(separator: ", ")), got \(got)")
            }
        } else {
            for warning in warnings { failures.append("unexpected warning \(warning)") }
        }
        let errors = outcome?.errors ?? []
        switch expected.error {
        case .none:
            for error in errors { failures.append("unexpected policy error: \(error)") }
        case .any:
            if errors.isEmpty { failures.append("expected a policy error, got none") }
        case .containing(let piece):
            if !errors.contains(where: { $0.description.contains(piece) }) {
                let got = errors.isEmpty ? "none" : errors.map(\.description).joined(separator: "; ")
                failures.append("expected a policy error containing \"\(piece)\", got \(got)")
            }
        }
        for followUp in outcome?.followUps ?? [] {
            for warning in followUp.warnings { failures.append("unexpected warning after the immediate answer: \(warning)") }
            for error in followUp.errors { failures.append("unexpected policy error after the immediate answer: \(error)") }
        }
        if let dialog = expected.dialog, (outcome?.dialogShown ?? false) != dialog {
            failures.append(dialog ? "expected the system dialog to appear, it did not" : "expected no system dialog, but it appeared")
        }
        if let pending = expected.pending, result.pendingReminders != pending {
            failures.append("expected \(pending) pending reminder(s), got \(result.pendingReminders)")
        }
        if let reminders = expected.reminders {
            let scheduled = outcome?.remindersScheduled ?? []
            if let count = reminders.count, scheduled.count != count {
                failures.append("expected \(count) reminder(s) scheduled, got \(scheduled.count)")
            }
            if let alert = reminders.alert {
                if scheduled.isEmpty {
                    failures.append("expected reminders \(alert ? "with an alert" : "with badge and sound only"), but none were scheduled")
                } else if let wrong = scheduled.first(where: { $0.presentsAlert != alert }) {
                    failures.append("expected reminders \(alert ? "with an alert" : "with badge and sound only"), "
                        + "but \(wrong.id) \(wrong.presentsAlert ? "shows an alert" : "is badge and sound only")")
                }
            }
        }
        if !expected.ledger.isEmpty {
            let table = LedgerPaths.table(of: ledger)
            for (path, value, _) in expected.ledger {
                let actual = LedgerPaths.value(at: path, in: table)
                if !LedgerPaths.matches(actual, value) {
                    failures.append("ledger.\(path): expected \(value?.description ?? "nil"), got \(actual?.description ?? "nil")")
                }
            }
        }
        return failures
    }

    private func describeAction(_ outcome: Outcome) -> String {
        let name = outcome.decision.action.name
        guard outcome.decision.action == .none, let proposed = outcome.proposed, proposed.action != .none else { return name }
        return "none (the policy proposed \(proposed.action.name); \(outcome.warnings.map(\.name).joined(separator: ", ")))"
    }
}

/// Dotted-path access to the ledger by its Lua names.
enum LedgerPaths {
    static func table(of ledger: Ledger) -> PolicyValue {
        guard let data = try? JSONEncoder().encode(ledger),
              let value = try? JSONDecoder().decode(PolicyValue.self, from: data) else { return .table([:]) }
        return value
    }

    static func value(at path: String, in table: PolicyValue) -> PolicyValue? {
        var current: PolicyValue? = table
        for part in path.split(separator: ".") {
            guard case .table(let fields)? = current else { return nil }
            current = fields[String(part)]
        }
        return current
    }

    /// Numbers compare by value (`3` matches `3.0`); `nil` matches a missing field.
    static func matches(_ actual: PolicyValue?, _ expected: PolicyValue?) -> Bool {
        switch (actual, expected) {
        case (nil, nil): return true
        case (.integer(let a)?, .number(let b)?): return Double(a) == b
        case (.number(let a)?, .integer(let b)?): return a == Double(b)
        default: return actual == expected
        }
    }
}

/// The policy source behind `policy_update` steps.
final class PolicyUpdates: Sendable {
    let builtIn: any Policy
    let configuration: PolicySource.Configuration
    private let source: Locked<(source: PolicySource?, seenEvents: Int)>

    /// `nil` when the scenario has no `policy_update` step.
    init?(_ scenario: Scenario, builtIn: any Policy, clock: ManualClock) throws(InputError) {
        guard scenario.steps.contains(where: { if case .policyUpdate = $0.action { true } else { false } }) else { return nil }
        var keys: [BundlePublicKey] = []
        for url in scenario.trustedKeys {
            do {
                keys.append(try BundlePublicKey.read(contentsOf: url))
            } catch {
                throw InputError(error.description, at: scenario.trustedKeysLocation, field: "trusted_keys")
            }
        }
        self.builtIn = builtIn
        configuration = PolicySource.Configuration(
            pack: nil, trust: keys.isEmpty ? .unsignedForDevelopment : .keys(keys), hostParams: scenario.params, clock: clock)
        source = Locked((nil, 0))
    }

    /// A fresh source (at the start, and after a reinstall).
    func reset() -> PolicySource {
        let fresh = PolicySource(builtIn: builtIn, configuration: configuration)
        source.withLock { $0 = (fresh, 0) }
        return fresh
    }

    struct Result {
        var note: String
        var refusal: BundleError?

        func failure(against expected: Scenario.ExpectedUpdate?) -> String? {
            switch (expected, refusal) {
            case (nil, let refusal?), (.installed?, let refusal?):
                return "policy update refused: \(refusal)"
            case (.refused?, nil):
                return "expected the policy update to be refused, it was installed"
            case (.refused(let piece?)?, let refusal?) where !refusal.description.contains(piece):
                return "expected the policy update to be refused with \"\(piece)\", got: \(refusal)"
            default:
                return nil
            }
        }
    }

    func install(_ url: URL) -> Result {
        guard let current = source.current.source else { return Result(note: "no policy source", refusal: nil) }
        do {
            let manifest = try current.install(contentsOf: url)
            _ = takeNewEvents()
            return Result(note: "installed bundle \(manifest.pack) version \(manifest.version) (policy \(current.name))", refusal: nil)
        } catch {
            _ = takeNewEvents()
            return Result(note: "policy update refused: \(error)", refusal: error)
        }
    }

    /// Events of the source not shown yet, as notes.
    func takeNewEvents() -> [String] {
        guard let current = source.current.source else { return [] }
        let events = current.status.events
        return source.withLock { state in
            let new = events.dropFirst(state.seenEvents)
            state.seenEvents = events.count
            return new.map { "policy source \($0)" }
        }
    }
}
