import Foundation
import PermitCore
import PermitSimulator

/// One simulated user living `days` days with the app under one policy: the simulated app
/// (`SimulatedApp`: the real engine in each process, the simulated device), and the model's
/// choices drawn from the user's own random streams, turned into the app's calls.
///
/// Two streams per user: `traits` (iOS version, locale, A/B bucket) is the same whichever
/// policy runs, so every policy meets the same population; `behaviour` draws every answer.
/// A third, `processes`, draws which sessions are cold launches and each new process's
/// `math.random` seed, so that those draws change nothing else the user does.
struct UserSimulation: Sendable {
    /// The model, with the figures of the user's experiment arms once they are known (`ArmFigures`).
    private(set) var model: UserModel
    let policy: any Policy
    let days: Int
    var tally: Tally
    /// The user's arm of each experiment the policy declares, from the first event that
    /// carried one: the install id is the same across reinstalls, so the arm is too, and a user
    /// who reinstalls and never opens the app again keeps the arm they had.
    private(set) var arms: [String: String] = [:]
    /// The decision records the user's app logs, one per event, when `permit simulate --records`
    /// asks for them; `nil` (nothing built, nothing kept) otherwise.
    var records: [LoggedRecord]?
    /// The policy declares experiments, so `note` looks for the user's arms.
    private let wantsArms: Bool

    private var rng: SplitMix64
    private let platform: Platform
    /// The app on the user's iPhone: a process per cold launch, each with its own engine and a
    /// policy started over for it.
    private var app: SimulatedApp
    private var clock: ManualClock { app.clock }
    private var device: SimulatedDevice { app.device }

    private var installed = true
    private var reinstallDay: Int?
    /// Which sessions are cold launches, and the seeds of the new processes.
    private var processes: SplitMix64
    private var promptsSeen = 0
    private var leaving = false
    private var firstLaunchAt: Int64 = 0
    private var reachedAlerts = false
    /// The day a quiet (provisional) user of this install makes their choice; `Int.max` once made.
    private var quietChoiceDay: Int?
    /// The device's answer may have changed since it was last looked at (a dialog answered,
    /// Settings changed, a reinstall, a request the system answered at once): reading it takes
    /// the device's lock, so it is read only then.
    private var authorizationMayHaveChanged = true
    /// The model's app events this policy declares (the others are not sent to it), as sessions draw them.
    private let sessionEvents: SessionEvents
    /// Sessions of this install so far (for `once_after_session`), and the day of the last one (for `once_per_day`).
    private var installSessions = 0
    private var lastSessionDay = -1
    /// The user's time-zone changes, in day order (empty for one who never travels), and the next one.
    private let trips: [Travel.Change]
    private var nextTrip = 0
    /// Whether days follow a zone's clock other than UTC's (a home zone, or trips): each day's
    /// midnight is then found on the device's clock, daylight-saving days included.
    private let keepsLocalDays: Bool
    /// 1 when the home zone is east of UTC: its midnight of `start`'s date came before `start`,
    /// so the user's first day is the next local one (none of its sessions falls before the run
    /// starts); 0 otherwise.
    private let firstDayShift: Int

    static let utc = TimeZone(identifier: "UTC")!

    init(
        index: Int, seed: UInt64, model: UserModel, policy: any Policy, processes policies: any PolicyPerProcess, days: Int,
        params: [String: PolicyValue] = [:], appEvents: [ModelEvent] = []
    ) {
        self.model = model
        processes = SplitMix64.stream(seed: seed ^ 0xC01D_1A0C, index: UInt64(index))
        sessionEvents = SessionEvents(modelEvents: model.appEvents, declared: appEvents)
        self.policy = policy
        wantsArms = !policy.experiments.isEmpty
        self.days = days
        self.tally = Tally(days: days)
        var traits = SplitMix64.stream(seed: seed, index: UInt64(index) &* 2)
        rng = SplitMix64.stream(seed: seed, index: UInt64(index) &* 2 &+ 1)
        platform = Platform(version: model.osVersions.pick(&traits), isAppClip: model.app.isAppClip)
        let locale = model.locales.pick(&traits)
        let bucket = Int(traits.next() % 100)
        // Streams of their own, so that a model without home zones or travel draws exactly as before.
        var homeDraw = SplitMix64.stream(seed: seed ^ 0x4042_E5, index: UInt64(index))
        let home = model.homeZones?.pick(&homeDraw) ?? UserSimulation.utc
        var travel = SplitMix64.stream(seed: seed ^ 0x7EA7_E1, index: UInt64(index))
        trips = model.travel?.itinerary(days: days, home: home, rng: &travel) ?? []
        keepsLocalDays = !trips.isEmpty || home.identifier != UserSimulation.utc.identifier
        let start = model.start.timeIntervalSince1970
        firstDayShift = Self.localMidnight(of: start, in: home) < start ? 1 : 0
        let configuration = EngineConfiguration(
            maxPromptsPerDay: model.maxPromptsPerDay, locale: locale, timeZone: home,
            userBucket: bucket, params: params, foregroundRechecks: [],
            // The same id for the user under every policy and seed-stable: two policies with
            // the same experiment put each user in the same arm.
            installID: "sim-\(seed)-\(index)")
        let clock = ManualClock(model.start)
        let device: SimulatedDevice
        do {
            device = try SimulatedDevice(
                platform: platform, clock: clock, entitlements: model.app.entitlements,
                ephemeralNotifications: model.app.ephemeralNotifications, timeZone: home)
        } catch {
            preconditionFailure("a fresh device starts with the authorization its platform allows: \(error)")
        }
        // The app's files are saved when a process ends, not at every event: nobody reads them
        // while a process runs (`AppFiles`).
        app = SimulatedApp(
            device: device, clock: clock, files: AppFiles(savesEveryEvent: false), configuration: configuration,
            policies: policies)
    }

    private var now: Int64 { Int64(clock.now().timeIntervalSince1970) }

    /// Lives every day. Each session runs isolated to its process's engine (`session(day:on:)`),
    /// so that its events reach the engine without an executor switch each.
    mutating func run() async {
        tally.users = 1
        let startSeconds = model.start.timeIntervalSince1970
        for day in 0..<days {
            var midnight = startSeconds + Double(day + firstDayShift) * 86_400
            if !installed, let comeback = reinstallDay, comeback <= day {
                await reinstall()
            }
            // Midnight (and any daylight-saving switch, at night) passed while the app was
            // suspended: iOS queues significant_time_change for its next return (Z-03).
            if day > 0 { app.dayChangedWhileSuspended() }
            if nextTrip < trips.count, trips[nextTrip].day == day {
                await changeZone(to: trips[nextTrip].zone, utcMidnight: midnight)
                nextTrip += 1
            }
            if keepsLocalDays {
                // Sessions fall within the model's session hours on the device's clock, wherever it is.
                midnight = Self.localMidnight(of: midnight, in: device.timeZone)
            }
            var count = model.sessionsPerDay.sample(&rng)
            if day == 0 { count = max(1, count) }  // the install day: the app is opened at least once
            // Sessions start at random times within the session hours (08:00–22:00 unless the
            // model says otherwise; the same draws as before for the default), in order.
            let (first, span) = (model.sessionHours.lowerBound * 3600, UInt64(model.sessionHours.count * 3600))
            var starts = (0..<count).map { _ in first + Int(rng.next() % span) }
            starts.sort()
            for start in starts where installed {
                let at = midnight + Double(start)
                if at > clock.now().timeIntervalSince1970 { clock.set(Date(timeIntervalSince1970: at)) }
                await session(day: day)
                clock.advance(by: 60)
            }
            if installed {
                var authorization = device.authorization
                if authorization == .provisional, model.quietTurnOff > 0 || model.quietDeliverImmediately > 0 {
                    chooseQuietDelivery(day: day)
                    authorization = device.authorization
                }
                tally.reachByDay[day][Reach.of(authorization, alert: device.settings.alert)] += 1
            }
        }
        if !installed { tally.uninstalledAtEnd = 1 }
    }

    /// One session: a cold launch starts a new process (its engine over what the last one
    /// saved, its policy started over), then the session runs on that process's engine.
    private mutating func session(day: Int) async {
        let cold = await startsProcess()
        // The simulation's policies always give a process one (`RestartedVM.failedStartPolicy`).
        guard let engine = app.engine else { return }
        await session(day: day, cold: cold, on: engine)
    }

    /// The session itself: the app opens, features are opened (and app events sent), the app
    /// closes. Inlined into `session(day:)`, its only caller, for the reason `interact` is.
    @inline(__always)
    private mutating func session(day: Int, cold: Bool, on engine: isolated PermissionEngine) async {
        // A launch has renewed an App Clip's ephemeral authorization, as in a scenario; a time
        // change queued while suspended is heard first on a return (a cold launch read the zone).
        let opened = await app.foreground(sending: cold ? .appLaunch : .appForeground, on: engine)
        // What the time change decides is answered like any other event (a prompt it shows is seen).
        if let timeChange = opened.timeChange { await respond(to: timeChange.outcome, on: engine) }
        if firstLaunchAt == 0 { firstLaunchAt = now }
        installSessions += 1
        let firstOfDay = lastSessionDay != day
        lastSessionDay = day
        await respond(to: opened.outcome, on: engine)
        let opens = model.featureOpensPerSession.sample(&rng)
        if sessionEvents.isEmpty {
            for _ in 0..<opens where !leaving {
                clock.advance(by: Double(30 + rng.next() % 270))
                await interact(.featureOpened(model.features.pick(&rng)), on: engine)
            }
        } else {
            let actions = sessionEvents.actions(
                featureOpens: opens, features: model.features, installSession: installSessions, firstOfDay: firstOfDay,
                rng: &rng)
            for action in actions where !leaving {
                clock.advance(by: Double(30 + rng.next() % 270))
                if case .custom(let custom) = action { tally.appEvents[custom.name, default: 0] += 1 }
                await interact(action, on: engine)
            }
        }
        clock.advance(by: Double(30 + rng.next() % 270))
        let left = await app.background(on: engine)
        await respond(to: left.outcome, on: engine)
        if let answer = left.answer { await respond(to: answer, on: engine) }
        if leaving { await uninstall(day: day) }
    }

    /// Whether this session is a cold launch: the first of an install always, else with the
    /// model's `cold_launch_share`. A cold launch is a new process (`SimulatedApp.launch`): a
    /// new engine, and the policy started over (for a Lua policy a fresh environment, its
    /// `math.random` seeded from the user's process stream), so no state passes from one
    /// process, or one user, to the next.
    private mutating func startsProcess() async -> Bool {
        tally.sessions += 1
        let draw = processes.unit()
        guard app.process == nil || draw < model.coldLaunchShare else { return false }
        tally.coldLaunches += 1
        let seed = processes.next()
        do {
            try await app.launch(processSeed: seed)
        } catch {
            tally.errors[error.kind.rawValue, default: 0] += 1
            if tally.firstError == nil { tally.firstError = error.description }
        }
        return true
    }

    /// The user arrives in another time zone (or comes home), at 06:00 on the new zone's clock
    /// (or now, if later), before the day's first session: the device changes zone (pending
    /// reminders keep their wall-clock times), and the app, suspended, hears
    /// `significant_time_change` when it returns to the foreground, as after a scenario's
    /// `timezone:` step in the background. A new process starts in the zone the device is in.
    private mutating func changeZone(to zone: TimeZone, utcMidnight: Double) async {
        let arrival = Self.localMidnight(of: utcMidnight, in: zone) + 6 * 3600
        if arrival > clock.now().timeIntervalSince1970 { clock.set(Date(timeIntervalSince1970: arrival)) }
        _ = await app.changeTimeZone(to: zone)
        tally.timeZoneChanges += 1
    }

    /// Midnight, on `zone`'s clock, of the calendar day whose UTC midnight is `utcMidnight`.
    static func localMidnight(of utcMidnight: Double, in zone: TimeZone) -> Double {
        let guess = utcMidnight - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: utcMidnight)))
        return utcMidnight - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: guess)))
    }

    /// Sends an event and answers whatever the app shows, as the model's user would.
    /// Inlined into `session`, its only caller: as a call of its own it cost every event an
    /// async frame and an executor check (~200 instructions).
    @inline(__always)
    private mutating func interact(_ event: AppEvent, on engine: isolated PermissionEngine) async {
        await respond(to: await app.send(event, on: engine), on: engine)
    }

    /// Answers whatever `first` shows, as the model's user would. Inlined for the reason
    /// `interact` is.
    @inline(__always)
    private mutating func respond(to first: consuming Outcome, on engine: isolated PermissionEngine) async {
        var outcome = first
        note(outcome)
        var softAccepted = false
        // A decision's `row`: the user comes to it once nothing modal is left to answer.
        var beneath: Decision.Action?
        // A policy could answer every answer with another prompt; a person gives up eventually.
        for _ in 0..<12 {
            if let row = outcome.decision.row { beneath = row == .dismiss ? nil : row }
            switch outcome.decision.action {
            case .none, .dismiss:
                // The row put up with this decision or beneath the modal just answered is seen
                // as a row decided alone would be.
                guard let row = beneath else { return }
                beneath = nil
                outcome.decision = Decision(row)
            case .inform(let page):
                // A page tells and asks nothing: the user reads it and taps its button. No
                // prompt, so no annoyance; a row (or a label) is only seen.
                softAccepted = false
                guard page.presentation != .inline else { return }
                clock.advance(by: 5)
                outcome = await app.send(.informAnswered(.ok), on: engine)
                note(outcome)
            case .softPrompt(let prompt) where prompt.presentation == .inline:
                // A row on the screen: seen, and acted on or scrolled past; never answered.
                guard seeInlineRow() else { return }
                softAccepted = true
                clock.advance(by: 5)
                outcome = await app.send(.softPromptAnswered(.accept), on: engine)
                note(outcome)
            case .softPrompt:
                let answer = answerSoftPrompt()
                softAccepted = answer == .accept
                clock.advance(by: 5)
                outcome = await app.send(.softPromptAnswered(answer), on: engine)
                note(outcome)
            case .requestPermission:
                guard outcome.dialogShown, let granted = answerDialog(afterSoftAccept: softAccepted) else { return }
                softAccepted = false
                clock.advance(by: 3)
                outcome = await app.send(.systemPromptAnswered(granted: granted), on: engine)
                note(outcome)
            case .settingsPrompt(let prompt) where prompt.presentation == .inline:
                softAccepted = false
                guard seeInlineRow() else { return }
                app.leaveForSettings()
                note(await app.send(.settingsPromptAnswered(.open), on: engine))
                outcome = await visitSettings(on: engine)
            case .settingsPrompt:
                softAccepted = false
                outcome = await answerSettingsPrompt(on: engine)
            case .openSettings:
                // The user's tap opened Settings at once: they are there, as after Open.
                softAccepted = false
                tally.settingsOpened += 1
                outcome = await visitSettings(on: engine)
            }
        }
    }

    /// The soft prompt: accept, dismiss or decline, each less likely to be yes the more
    /// prompts the user has seen.
    private mutating func answerSoftPrompt() -> SoftPromptAnswer {
        tally.softPrompts += 1
        let yes = eager(model.softAccept)
        let draw = rng.unit()
        let answer: SoftPromptAnswer
        if draw < yes {
            answer = .accept
            tally.softAccepted += 1
        } else if draw < yes + model.softDismiss {
            answer = .dismiss
            tally.softDismissed += 1
        } else {
            answer = .decline
            tally.softDeclined += 1
        }
        promptShown()
        return answer
    }

    /// The system dialog, tapped on the device: whether iOS granted, or nil when no dialog was
    /// there to answer. Users who just accepted a soft prompt allow more often.
    private mutating func answerDialog(afterSoftAccept softAccepted: Bool) -> Bool? {
        tally.systemDialogs += 1
        let allow: Bool
        if softAccepted {
            tally.dialogsAfterAccept += 1
            allow = rng.chance(eager(model.allowAfterSoftAccept))
            if allow { tally.dialogsAfterAcceptAllowed += 1 }
        } else {
            tally.dialogsCold += 1
            allow = rng.chance(eager(model.allowCold))
            if allow { tally.dialogsColdAllowed += 1 }
        }
        promptShown()
        let granted: Bool
        do { granted = try device.answerDialog(allow: allow) } catch { return nil }
        authorizationMayHaveChanged = true
        return granted
    }

    /// The settings prompt: cancel or dismiss, or leave for Settings (the app in the background
    /// meanwhile), maybe switch notifications on, and come back to the foreground.
    private mutating func answerSettingsPrompt(on engine: isolated PermissionEngine) async -> Outcome {
        tally.settingsPrompts += 1
        let open = rng.chance(eager(model.settingsOpen))
        promptShown()
        clock.advance(by: 5)
        guard open else {
            let outcome = await app.send(.settingsPromptAnswered(rng.chance(0.5) ? .cancel : .dismiss), on: engine)
            note(outcome)
            return outcome
        }
        tally.settingsOpened += 1
        app.leaveForSettings()
        note(await app.send(.settingsPromptAnswered(.open), on: engine))
        return await visitSettings(on: engine)
    }

    /// An inline row on screen: the user acts on it with the model's `inline.act` chance.
    /// Not a prompt: it adds nothing to the annoyance.
    private mutating func seeInlineRow() -> Bool {
        tally.inlineShown += 1
        guard rng.chance(model.inlineAct) else { return false }
        tally.inlineActed += 1
        return true
    }

    /// The user is in Settings (the app in the background meanwhile), maybe switches
    /// notifications on, and comes back to the foreground.
    private mutating func visitSettings(on engine: isolated PermissionEngine) async -> Outcome {
        app.leaveForSettings()
        clock.advance(by: 20)
        if rng.chance(eager(model.settingsEnable)) {
            if (try? enableInSettings()) != nil { tally.settingsEnabled += 1 }
            authorizationMayHaveChanged = true
        }
        clock.advance(by: 10)
        let back = await app.foreground(sending: .appForeground, on: engine)
        if let timeChange = back.timeChange { note(timeChange.outcome) }
        note(back.outcome)
        return back.outcome
    }

    /// A quiet user, some days after provisional was granted, answers the "Keep" / "Turn Off"
    /// choice a quiet notification offers: off (denied), Keep › Deliver Immediately (authorized,
    /// still without alerts, sounds or badges: docs/platform.md P-02), or quiet as it is.
    /// Happens between days, when the app is closed, as it would on a device; the app sees the
    /// change on its next read.
    private mutating func chooseQuietDelivery(day: Int) {
        if quietChoiceDay == nil { quietChoiceDay = day + max(0, model.quietDecidesAfterDays.sample(&rng)) }
        guard let choiceDay = quietChoiceDay, choiceDay <= day else { return }
        quietChoiceDay = Int.max
        let draw = rng.unit()
        if draw < model.quietTurnOff {
            if (try? app.changeInSettings(authorization: .denied)) != nil { tally.quietTurnedOff += 1 }
        } else if draw < model.quietTurnOff + model.quietDeliverImmediately {
            if (try? device.keepProvisional(.deliverImmediately)) != nil { tally.quietDeliveredImmediately += 1 }
        } else {
            tally.quietLeftQuiet += 1
        }
        authorizationMayHaveChanged = true
    }

    private func enableInSettings() throws(SimulatedDeviceError) {
        if device.authorization == .denied {
            try app.changeInSettings(authorization: .authorized)
        } else {
            try app.changeInSettings(settings: [.alert: .enabled])
        }
    }

    /// Counts an event's outcome: its errors and warnings, and whether the user can now be
    /// reached with alerts. Synchronous and borrowing, so that an event costs its callers one
    /// async call (the engine's) and no copy of the outcome.
    private mutating func note(_ outcome: borrowing Outcome) {
        tally.events += 1
        if records != nil {
            records!.append(
                LoggedRecord(
                    user: app.configuration.installID, reinstalls: tally.reinstalls, os: platform.version,
                    locale: app.configuration.locale, record: outcome.record))
        }
        if wantsArms, arms.isEmpty {
            arms = outcome.arms
            // The first event tells the user's arms, before any prompt it shows is answered.
            if !arms.isEmpty, !model.armFigures.isEmpty { model = model.armFigures.model(model, arms: arms) }
        }
        for error in outcome.errors {
            tally.errors[error.kind.rawValue, default: 0] += 1
            if tally.firstError == nil { tally.firstError = error.description }
        }
        for warning in outcome.warnings { tally.warnings[warning.name, default: 0] += 1 }
        if case .requestPermission = outcome.decision.action { authorizationMayHaveChanged = true }
        if !outcome.followUps.isEmpty { authorizationMayHaveChanged = true }
        if !reachedAlerts, authorizationMayHaveChanged {
            authorizationMayHaveChanged = false
            guard device.authorization == .authorized, device.settings.alert == .enabled else { return }
            reachedAlerts = true
            tally.secondsToAlerts.append(Int32(clamping: now - firstLaunchAt))
        }
    }

    /// A "yes" chance after the annoyance of the prompts seen so far.
    private func eager(_ chance: Double) -> Double {
        max(0, chance - Double(promptsSeen) * model.denyIncreasePerPrompt)
    }

    private mutating func promptShown() {
        promptsSeen += 1
        if model.uninstallPerPrompt > 0, rng.chance(Double(promptsSeen) * model.uninstallPerPrompt) {
            leaving = true
        }
    }

    /// The user deletes the app: its process ends; it may come back on a later day.
    private mutating func uninstall(day: Int) async {
        leaving = false
        installed = false
        await app.terminate()
        tally.uninstalls += 1
        reinstallDay = nil
        if rng.chance(model.reinstallChance) {
            reinstallDay = day + max(1, model.reinstallAfterDays.sample(&rng))
        }
    }

    /// The user installs the app again: the device keeps or forgets the old answer (the
    /// model's draw), the Keychain survives, and the next session is a cold launch.
    private mutating func reinstall() async {
        installed = true
        reinstallDay = nil
        tally.reinstalls += 1
        installSessions = 0
        quietChoiceDay = nil
        await app.reinstall(systemRemembers: rng.chance(model.reinstallSystemRemembers))
        authorizationMayHaveChanged = true
    }
}
