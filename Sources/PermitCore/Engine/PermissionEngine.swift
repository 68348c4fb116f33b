import Foundation

/// The heart of Permit: takes app events, keeps the status and the ledger, asks the policy,
/// enforces the guardrails, carries out the decision, and reports what it did.
///
/// An actor, and more: events are handled strictly one after another in arrival order (a
/// FIFO gate spans the awaits on the notification center), so no event is lost or interleaved
/// when many tasks send at once, and the policy is never entered from two events together.
public actor PermissionEngine {
    private let policy: any Policy
    private let client: any NotificationCenterClient
    private let store: any LedgerStore
    /// Where the part that survives a reinstall lives; meaningful only when `keepsDurable`.
    /// Not an optional: binding an optional existential copies it (about 170 instructions an
    /// event), while a call on a stored one reads it in place.
    private let durableStore: any DurableStore
    /// Whether the engine was given a durable store (otherwise nothing survives a reinstall).
    private let keepsDurable: Bool
    /// The durable part last built, what it was built from, and the part as last stored.
    @exclusivity(unchecked) private var durableSource: DurableSource
    /// When the app was last seen launching, coming to the foreground or leaving it.
    @exclusivity(unchecked) private var lastSeenAt: Int64?
    private let clock: any PermitClock
    /// The device the engine runs for.
    public let platform: Platform
    /// The host's settings.
    public let configuration: EngineConfiguration

    // The actor serialises every access to its state, and the FIFO gate keeps events from
    // interleaving across awaits, so the per-access dynamic exclusivity checks Swift would add
    // (a thread-local lookup each, several per event) check nothing: they are off for the
    // state the hot path touches.
    /// The context the policy is asked with, kept from call to call: its `history` is the
    /// engine's ledger (`ledger` reads and writes it there), and `asking` sets its other
    /// per-event fields before each call. A context made for each call held a copy of the
    /// ledger, a retain and a release of each of its strings and dictionaries every time.
    @exclusivity(unchecked) private var context: PolicyContext
    private var ledger: Ledger {
        get { context.history }
        _modify { yield &context.history }
    }
    @exclusivity(unchecked) private var settings: NotificationSettings = .unsupported
    @exclusivity(unchecked) private var appIsActive = true
    /// What the engine last put on screen of each kind: whether it was an inline row (an answer
    /// to one counts apart, `inline_acted`) and its `id` (which the answer carries back). In
    /// memory only, as the screen is.
    @exclusivity(unchecked) private var shown = ShownPrompts()
    private let broadcaster: StatusBroadcaster
    /// Where decision records go (`decisionRecords`, `onDecisionRecord`).
    private let records = RecordBroadcaster()
    /// The experiments the ledger's arms were last reconciled with (`nil` before the first event).
    @exclusivity(unchecked) private var armsReconciledFor: [Experiment]?
    /// What the broadcaster holds: the engine is its only publisher, so it keeps the value
    /// here too and takes the broadcaster's lock only for a change.
    @exclusivity(unchecked) private var published: PermissionStatus = .unknown
    /// The local day of `prompts_today` and the local time of `ctx.local_time`, kept between events.
    @exclusivity(unchecked) private var localDays: LocalDayCache
    /// The device's time zone: the configuration's, until a `significant_time_change` names another.
    @exclusivity(unchecked) private var timeZone: TimeZone
    /// The locale tags a text is looked up by, most specific first (the locale never changes).
    private let localeChain: [String]
    /// The last reminder plan, so that an unchanged window is not planned again.
    @exclusivity(unchecked) private var reminderPlans = ReminderPlanMemo()
    private var recheckTask: Task<Void, Never>?

    /// Why the ledger or the durable part could not be read, while they cannot (a locked
    /// device): the engine then decides nothing, saves nothing, and loads them again at each
    /// event until they read. `nil` once they have been read, the common case.
    @exclusivity(unchecked) private var unreadable: String?
    /// What the loads reported and whether the durable part came back: set once the stores read.
    private let loadReport: Locked<LoadReport>

    // The FIFO gate.
    @exclusivity(unchecked) private var busy = false
    @exclusivity(unchecked) private var waiters: [CheckedContinuation<Void, Never>] = []

    /// What the store reported when the ledger was loaded (a damaged file set aside, ...).
    public nonisolated var storeWarnings: [String] { loadReport.current.warnings }
    /// Whether this install's fresh ledger took back what an earlier install kept durable
    /// (`remember_durable`, docs/reference/policy.md#policy-remember-durable).
    public nonisolated var restoredDurablePart: Bool { loadReport.current.restored }
    /// Why the ledger (or the durable part) could not be read yet, while it cannot: on a locked
    /// device, until the first unlock or while a `complete` file stays locked. Every event then
    /// decides `none` with this reason in its `storageError`, saves nothing, and loads again.
    public nonisolated var unreadableStores: String? { loadReport.current.unreadable }

    /// An engine for one app session. It loads the ledger from `store` at once; one engine per
    /// store (a file store refuses a second). Loading reads files and the Keychain: create the
    /// engine off the main thread (docs/reference/host.md#creating-the-engine).
    ///
    /// - Parameters:
    ///   - policy: what decides; a broken one makes every decision `none`, never a crash.
    ///   - client: the notification center (`SimulatedDevice` in tests).
    ///   - platform: the iOS version and App Clip flag.
    ///   - store: where the ledger lives between launches.
    ///   - durableStore: where the part the policy keeps across a reinstall lives (the
    ///     Keychain on iOS); `nil` keeps nothing beyond `store`.
    ///   - clock: where "now" comes from, and what the foreground re-checks wait on.
    ///   - configuration: the prompt cap, locale, time zone, params, re-check delays.
    public init(
        policy: any Policy,
        client: any NotificationCenterClient,
        platform: Platform,
        store: any LedgerStore = InMemoryLedgerStore(),
        durableStore: (any DurableStore)? = nil,
        clock: any PermitClock = SystemClock(),
        configuration: EngineConfiguration = EngineConfiguration()
    ) {
        self.policy = policy
        self.client = client
        self.platform = platform
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.durableStore = durableStore ?? InMemoryDurableStore()
        self.keepsDurable = durableStore != nil
        let loaded = LoadedStores(
            store: store, durableStore: durableStore, keeping: policy.durableKeys,
            now: Int64(clock.now().timeIntervalSince1970.rounded(.down)))
        self.context = PolicyContext(
            event: .appLaunch, status: .unknown, previousStatus: .unknown, settings: .unsupported, platform: platform,
            history: loaded.ledger, params: configuration.params, now: 0, locale: configuration.locale,
            userBucket: configuration.userBucket, localTime: Self.notAskedYet,
            app: AppInfo(version: configuration.appVersion, name: configuration.appName))
        self.unreadable = loaded.unreadable
        self.loadReport = Locked(loaded.report)
        self.durableSource = DurableSource(stored: loaded.stored)
        // The status is `unknown` until this session has read it: the ledger's last status
        // may be stale (the user can have changed it in Settings while the app was closed).
        self.broadcaster = StatusBroadcaster(initial: .unknown)
        self.localDays = LocalDayCache(timeZone: configuration.timeZone)
        self.timeZone = configuration.timeZone
        self.localeChain = LocalizedText.fallbackChain(for: configuration.locale)
    }

    /// The context's local time until its first call, which sets it (`asking`): working out
    /// a local time for the context's placeholder `now` cost a time-zone lookup at every start.
    private static let notAskedYet = LocalTime(date: "1970-01-01", hour: 0, minute: 0, weekday: 4, timeZone: "UTC")

    // MARK: Status

    /// The status as last read (`unknown` before the first read).
    public nonisolated var status: PermissionStatus { broadcaster.current }

    /// The current status at once, then each distinct change. Many subscribers may listen;
    /// cancelling the iterating task releases the subscription.
    public nonisolated var statusStream: AsyncStream<PermissionStatus> { broadcaster.subscribe() }

    /// Every event's decision record (docs/reference/policy.md#decision-records), from the next event
    /// on, for the app's analytics. Many subscribers may listen; cancelling the iterating task
    /// releases the subscription. Records are built only while someone listens.
    public nonisolated var decisionRecords: AsyncStream<DecisionRecord> { records.subscribe() }

    /// Calls `body` with every event's decision record, on the engine's executor, before
    /// `handle` returns; for hosts that log synchronously. Keep it short.
    public nonisolated func onDecisionRecord(_ body: @escaping @Sendable (DecisionRecord) -> Void) {
        records.add(body)
    }

    /// How many status-stream subscribers are live (for tests of their release).
    nonisolated var statusSubscriberCount: Int { broadcaster.subscriberCount }

    /// Reads the status again (for example after the app returns from Settings).
    @discardableResult
    public func refresh() async -> PermissionStatus {
        await enterGate()
        defer { leaveGate() }
        if unreadable != nil, !loadedUnreadableStores() { return published }
        let status = await readStatus(at: unixNow())
        saveLedger()
        return status
    }

    /// A copy of the asking history.
    public var history: Ledger { ledger }

    /// The settings as last read.
    public var lastSettings: NotificationSettings { settings }

    /// Whether the engine believes the app is in the foreground (launch and foreground set it,
    /// background clears it).
    public var isAppActive: Bool { appIsActive }

    // MARK: Events

    /// Handles one app event and returns what the app should do.
    public func handle(_ event: AppEvent) async -> Outcome {
        // The gate's free path stays inline: an async call costs an executor switch per event.
        if busy { await waitForGate() } else { busy = true }
        defer { leaveGate() }

        let now = unixNow()
        note(event, at: now)
        if unreadable != nil, !loadedUnreadableStores() { return unread(event, at: now) }
        ledger.roll(toDay: localDays.day(of: now))
        if let version = configuration.appVersion, ledger.appVersion != version { noteUpdate(to: version) }
        let experiments = policy.experiments
        if armsReconciledFor != experiments { reconcileArms(with: experiments) }
        // Before this process's first read, the status the app knew is the one its ledger last
        // saw: a cold launch sees a change made in Settings while the app was not running
        // (`unknown` only for a fresh ledger). The published status stays `unknown` until read.
        let unread = published == .unknown
        let statusBefore = unread ? ledger.lastStatus : published
        if case .custom(let custom) = event, let problem = ledger.problem(recordingEvent: custom.name) {
            return refused(event, at: now, status: statusBefore, because: problem)
        }
        let answeredInline = shown.answer(event)
        ledger.record(event, at: now, legacy: platform.usesLegacyRegistration, inlineOnScreen: answeredInline)

        var status = statusBefore
        if event.rereadsStatus || unread {
            status = await readStatus(at: now)
        }

        var outcome = Self.emptyOutcome(event, at: now, before: statusBefore, after: status)
        outcome.arms = ledger.arms

        decide(&outcome, status: status, previous: statusBefore, now: now)
        if case .requestPermission = outcome.decision.action { await carryOutRequest(&outcome, now: now) }

        if let granted = outcome.immediateAnswer { await followUp(&outcome, granted: granted, status: status, now: now) }
        if outcome.decision.notify != nil || outcome.followUps.contains(where: { $0.decision.notify != nil }) {
            await postNotifications(&outcome, now: now)
        }
        // Read once, after the policy answered: a policy that pins itself for the event (a
        // delivered one) gives the answering policy's facts, and each read copies the whole
        // declaration.
        let declaration = policy.declaration

        if outcome.decision.cancelReminders || outcome.followUps.contains(where: \.decision.cancelReminders) {
            await cancelReminders(&outcome)
        } else if event.plansReminders || outcome.immediateAnswer != nil, outcome.statusAfter.isGranted,
            declaration.plansReminders
        {
            await planReminders(&outcome, event: event, status: outcome.statusAfter, previous: statusBefore, now: now)
            outcome.trace += policy.takeTrace()
        }

        if case .appForeground = event, status == statusBefore, !configuration.foregroundRecheckDelays.isEmpty {
            scheduleForegroundRechecks()
        }

        outcome.registerForRemoteNotifications = Outcome.registersForRemoteNotifications(
            event: event, before: statusBefore, after: outcome.statusAfter)
        if let choice = outcome.followUps.last?.decision.remoteRegistration ?? outcome.decision.remoteRegistration
            ?? declaration.remoteRegistration
        {
            outcome.registerForRemoteNotifications = choice == .register
            outcome.unregisterForRemoteNotifications = choice == .unregister
        }
        outcome.storageError = saveLedger()
        report(&outcome, declaration)
        return outcome
    }

    /// The end of an event: the policy hears of its errors, the outcome is signed with the
    /// policy's name and version, and listeners get its decision record.
    private func report(_ outcome: inout Outcome, _ declaration: PolicyDeclaration) {
        // Only events with errors are reported: the common case builds no array.
        if !outcome.errors.isEmpty || outcome.followUps.contains(where: { !$0.errors.isEmpty }) {
            policy.eventHandled(errors: outcome.errors + outcome.followUps.flatMap(\.errors))
        }
        outcome.policyName = declaration.name
        outcome.policyVersion = declaration.version
        if records.isListened { records.publish(DecisionRecord(outcome)) }
    }

    /// What an event says before anything is read: whether the app is in the foreground (not
    /// after `app_background` or `background_refresh`), and the device's zone after a
    /// significant time change (local days, `prompts_today` and reminder times follow it from
    /// this event on).
    private func note(_ event: AppEvent, at now: Int64) {
        switch event {
        case .appLaunch, .appForeground:
            appIsActive = true
            lastSeenAt = now
        case .appBackground, .backgroundRefresh:
            // A run in the background happens only there: a host that missed `app_background`
            // (a launch straight into the background) still has nothing shown.
            appIsActive = false
            lastSeenAt = now
            recheckTask?.cancel()
        case .significantTimeChange(let zone) where zone != timeZone:
            timeZone = zone
            localDays = LocalDayCache(timeZone: zone)
        default: break
        }
    }

    /// The first event of a process after the app was updated (or of the first process that
    /// knows its version): the version the ledger saw before is `ctx.app.previous_version` for
    /// the rest of this process, and the ledger keeps the new one. A fresh install has no
    /// version before, so no update is noticed.
    private func noteUpdate(to version: String) {
        context.app.previousVersion = ledger.appVersion
        ledger.appVersion = version
    }

    /// Brings the ledger's arms in line with the policy's experiments (the rule of
    /// `ArmAssignment.reconcile`), drawing and keeping an install id the first time one is needed.
    private func reconcileArms(with experiments: [Experiment]) {
        armsReconciledFor = experiments
        if experiments.isEmpty {
            ledger.arms = [:]
            return
        }
        if let host = configuration.installID { ledger.installID = host }
        if ledger.installID == nil { ledger.installID = UUID().uuidString.lowercased() }
        ledger.arms = ArmAssignment.reconcile(
            ledger.arms, experiments: experiments, installID: ledger.installID!, pins: configuration.arms)
    }

    /// An event the ledger cannot count: nothing changes, the policy is not asked, and the
    /// outcome says why (`invalid_event`).
    private func refused(_ event: AppEvent, at now: Int64, status: PermissionStatus, because problem: String) -> Outcome {
        var outcome = Self.emptyOutcome(event, at: now, before: status, after: status)
        outcome.errors = [PolicyError(kind: .invalidEvent, field: "event", message: problem)]
        return outcome
    }

    /// An event while the stores cannot be read: nothing the ledger would decide can be
    /// decided (a user who refused must not be asked again), so the decision is `none`, the
    /// reason is the outcome's `storageError`, and nothing is recorded or saved.
    private func unread(_ event: AppEvent, at now: Int64) -> Outcome {
        var outcome = Self.emptyOutcome(event, at: now, before: published, after: published)
        outcome.storageError = unreadable
        report(&outcome, policy.declaration)
        return outcome
    }

    /// Loads the stores again after a load that could not read them; `true` when they read
    /// (the engine then goes on from what they hold, as if it had just been created).
    private func loadedUnreadableStores() -> Bool {
        let loaded = LoadedStores(
            store: store, durableStore: keepsDurable ? durableStore : nil, keeping: policy.durableKeys, now: unixNow())
        unreadable = loaded.unreadable
        loadReport.withLock { $0 = loaded.report }
        guard loaded.unreadable == nil else { return false }
        ledger = loaded.ledger
        durableSource = DurableSource(stored: loaded.stored)
        armsReconciledFor = nil
        return true
    }

    /// An outcome of `event` in which nothing happened yet, the status read before and after it.
    /// Inlined: every event starts from one, built in place.
    @inline(__always)
    private static func emptyOutcome(
        _ event: AppEvent, at now: Int64, before: PermissionStatus, after: PermissionStatus
    ) -> Outcome {
        Outcome(
            event: event, time: now, statusBefore: before, statusAfter: after, proposed: nil, decision: .none,
            warnings: [], errors: [], dialogShown: false, immediateAnswer: nil, remindersScheduled: [], storageError: nil,
            trace: "")
    }

    /// A request that showed no dialog was answered at once: a real app gets that answer as
    /// the completion of its request, so the policy hears it too, as `system_prompt_answered`
    /// (it may, say, offer Settings right away instead of leaving a tap on "Allow" unanswered).
    /// One follow-up at most: an answer to the follow-up's own request is only recorded.
    private func followUp(_ outcome: inout Outcome, granted: Bool, status: PermissionStatus, now: Int64) async {
        var followUp = Self.emptyOutcome(
            .systemPromptAnswered(granted: granted), at: now, before: status, after: outcome.statusAfter)
        followUp.arms = outcome.arms
        let declaration = policy.declaration
        followUp.policyName = declaration.name
        followUp.policyVersion = declaration.version
        decide(&followUp, status: outcome.statusAfter, previous: status, now: now)
        if case .requestPermission = followUp.decision.action { await carryOutRequest(&followUp, now: now) }
        outcome.statusAfter = followUp.statusAfter
        outcome.followUps = [followUp]
    }

    // MARK: Carrying out a decision

    /// Asks the policy about `outcome.event`, applies the guardrails and `remember`, and records
    /// a prompt the app will show. A permission request is carried out by `carryOutRequest`:
    /// only it waits on the notification center, so the other events make no async call.
    private func decide(_ outcome: inout Outcome, status: PermissionStatus, previous: PermissionStatus, now: Int64) {
        var answer = asking(event: outcome.event, status: status, previous: previous, now: now) { context in
            policy.answer(context)
        }
        do throws(PolicyError) {
            if let proposed = try Self.takeDecision(from: &answer) {
                outcome.proposed = proposed
                var decision = proposed
                decision.action = try localized(proposed.action)
                decision.row = try proposed.row.map { row throws(PolicyError) in try localized(row, at: "decision.row") }
                decision.notify = try proposed.notify.map { request throws(PolicyError) in try localized(request) }
                let situation = GuardrailSituation(
                    status: status, settings: settings, version: platform.version, appIsActive: appIsActive,
                    promptsToday: ledger.promptsToday, maxPromptsPerDay: configuration.maxPromptsPerDay,
                    userInitiated: outcome.event.isUserInitiated, capExempt: proposed.capExempt != nil,
                    runsInBackground: outcome.event == .backgroundRefresh)
                (decision.action, outcome.warnings) = Guardrail.apply(to: decision.action, in: situation)
                var voided = decision.action == .none && proposed.action != .none
                if let row = decision.row, !voided {
                    // The row is judged as a row decided alone; one it voids voids the decision,
                    // whose modal and row speak of the same state.
                    let (kept, warnings) = Guardrail.apply(to: row, in: situation)
                    outcome.warnings += warnings.map { GuardrailWarning(guardrail: $0.guardrail, message: "decision.row: \($0.message)") }
                    decision.row = kept
                    if kept == .none {
                        decision.action = .none
                        voided = true
                    }
                }
                // Nothing of a decision a guardrail voided takes effect, its `remember` included:
                // a policy that stores "asked_at" must not believe it asked.
                if voided {
                    decision.row = nil
                    decision.cancelReminders = false
                    decision.remoteRegistration = nil
                    decision.notify = nil
                } else {
                    try ledger.apply(remember: proposed.remember)
                }
                outcome.decision = decision
            }
        } catch {
            outcome.errors.append(error)
            outcome.decision = .none
        }
        swap(&outcome.trace, &answer.trace)
        shown.show(outcome.decision.action)
        if let row = outcome.decision.row { shown.showRow(row) }
        switch outcome.decision.action {
        case .none, .dismiss:
            break
        case .requestPermission:
            shown.request = outcome.event == .softPromptAnswered(.accept) ? shown.answered : nil
        case .softPrompt, .settingsPrompt, .inform, .openSettings:
            record(shown: outcome.decision.action, at: now, feature: outcome.event.feature)
        }
        if let row = outcome.decision.row { record(shown: row, at: now, feature: outcome.event.feature) }
    }

    /// Counts in the history a prompt, row or page put on screen, or Settings opened.
    private func record(shown action: Decision.Action, at now: Int64, feature: String?) {
        switch action {
        case .softPrompt(let prompt):
            if prompt.presentation == .inline {
                ledger.recordInlineShown(settings: false)
            } else {
                ledger.recordSoftPromptShown(at: now, feature: feature)
            }
        case .settingsPrompt(let prompt):
            if prompt.presentation == .inline {
                ledger.recordInlineShown(settings: true)
            } else {
                ledger.recordSettingsPromptShown(at: now, feature: feature)
            }
        case .inform:
            ledger.recordInformShown(at: now)
        case .openSettings:
            ledger.recordSettingsOpened()
        case .none, .dismiss, .requestPermission:
            break
        }
    }

    /// The answer's decision moved out of it (an empty one left behind): `get()` on the answer
    /// in place copied the decision, every text and option of it, and destroyed the original
    /// with the answer.
    private static func takeDecision(from answer: inout PolicyAnswer) throws(PolicyError) -> Decision? {
        var result = Result<Decision?, PolicyError>.success(nil)
        swap(&result, &answer.decision)
        return try result.get()
    }

    /// Sends the permission request of `outcome.decision` and records what the system did.
    private func carryOutRequest(_ outcome: inout Outcome, now: Int64) async {
        guard case .requestPermission(let options) = outcome.decision.action else { return }
        let feature = outcome.event.feature
        let result: AuthorizationRequestResult
        if platform.usesLegacyRegistration {
            result = await client.registerLegacy(types: AppleMapping.legacyTypes(for: options))
        } else {
            result = await client.requestAuthorization(options: options)
        }
        switch result {
        case .dialogShown:
            outcome.dialogShown = true
            ledger.recordPermissionRequest(at: now, dialogShown: true, feature: feature)
        case .answeredWithoutDialog(let granted):
            // The system answered at once (on iOS 8–9 the register callback fired at once):
            // record the answer and read the status it left behind.
            ledger.recordPermissionRequest(at: now, dialogShown: false, feature: feature)
            ledger.record(.systemPromptAnswered(granted: granted), at: now, legacy: platform.usesLegacyRegistration)
            outcome.immediateAnswer = granted
            outcome.statusAfter = await readStatus(at: now)
        }
    }

    /// `notify`: each decision's notification (the event's, then its follow-up's) is handed to
    /// the system to deliver now, as a reminder would be scheduled: no text while the alert
    /// setting hides content, the interruption level iOS would deliver (docs/platform.md N-04).
    private func postNotifications(_ outcome: inout Outcome, now: Int64) async {
        let decisions = [outcome.decision] + outcome.followUps.map(\.decision)
        for request in decisions.compactMap(\.notify) {
            let shown = settings.showsContent
            let notification = ScheduledReminder(
                id: NotificationRequest.postedIdentifier(for: request.id, at: now),
                fireDate: Date(timeIntervalSince1970: TimeInterval(now)),
                title: shown ? request.title?.resolved(along: localeChain) : nil,
                body: shown ? request.body.resolved(along: localeChain) : nil, action: request.action, sound: request.sound,
                badge: request.badge,
                interruptionLevel: InterruptionLevel.delivered(request.interruptionLevel, on: platform.version, settings: settings))
            await client.post(notification)
            outcome.notificationsPosted.append(notification)
        }
    }

    /// `cancel_reminders`: every pending reminder of the policy goes; the app's own stay.
    private func cancelReminders(_ outcome: inout Outcome) async {
        let owned = await client.pendingReminders().map(\.id).filter { $0.hasPrefix(ReminderPlanner.ownedPrefix) }
        if !owned.isEmpty { await client.removePendingReminders(ids: owned) }
        outcome.remindersRemoved = owned
    }

    private func planReminders(
        _ outcome: inout Outcome, event: AppEvent, status: PermissionStatus, previous: PermissionStatus, now time: Int64
    ) async {
        let requests: [ReminderRequest]
        do {
            requests = try asking(event: event, status: status, previous: previous, now: time) {
                context throws(PolicyError) in try policy.planReminders(context)
            }
        } catch {
            outcome.errors.append(error)
            return
        }
        let now = Date(timeIntervalSince1970: TimeInterval(time))
        let inputs = ReminderPlanMemo.Inputs(
            overflow: client.pendingOverflowRule ?? .observed(on: platform.version), settings: settings,
            timeZone: timeZone, requests: requests, pending: await client.pendingReminders())
        let plan = reminderPlans.plan(for: inputs, now: now) { inputs in
            ReminderPlanner.planned(
                inputs.requests, now: now, timeZone: inputs.timeZone, locale: configuration.locale, chain: localeChain,
                pending: inputs.pending, contentShown: inputs.settings.showsContent, overflow: inputs.overflow,
                // What iOS delivers each with: no level before iOS 15, time-sensitive and critical
                // only with their entitlement and switch.
                deliveredLevel: { [version = platform.version, settings = inputs.settings] level in
                    InterruptionLevel.delivered(level, on: version, settings: settings)
                })
        }
        let toSchedule = plan.toSchedule
        for problem in plan.problems {
            outcome.errors.append(PolicyError(kind: .invalidDecision, field: "reminders", message: problem.description))
        }
        if !plan.toRemove.isEmpty {
            await client.removePendingReminders(ids: plan.toRemove)
        }
        if !toSchedule.isEmpty {
            await client.schedule(toSchedule)
        }
        outcome.remindersScheduled = toSchedule
        outcome.remindersRemoved = plan.toRemove
    }

    // MARK: Helpers

    private func readStatus(at now: Int64) async -> PermissionStatus {
        let snapshot = await client.readSettings()
        let status = snapshot.status(legacyRegistered: ledger.legacyRegistered)
        settings = snapshot.settings
        ledger.record(status: status, at: now)
        if status != published {
            published = status
            broadcaster.publish(status)
        }
        return status
    }

    /// Calls `ask` with the context of an event: the kept `context` with this event's fields.
    /// It is lent (`inout`), not passed: a stored property passed by value is copied for the
    /// call, ledger and all.
    private func asking<Result, Failure: Error>(
        event: AppEvent, status: PermissionStatus, previous: PermissionStatus, now: Int64,
        _ ask: (inout PolicyContext) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        context.event = event
        if case .systemPromptAnswered = event { context.promptID = shown.request } else { context.promptID = shown.answered }
        context.status = status
        context.previousStatus = previous
        context.settings = settings
        context.now = now
        context.localTime = localDays.localTime(of: now)
        return try ask(&context)
    }

    /// A `notify`'s texts for the configured locale; a missing one is an error naming its field.
    private func localized(_ request: NotificationRequest) throws(PolicyError) -> NotificationRequest {
        var request = request
        request.body = try localizedText(request.body, at: "decision.notify.body")
        if let title = request.title { request.title = try localizedText(title, at: "decision.notify.title") }
        return request
    }

    /// One text for the configured locale; a text without it is an error naming `field`.
    private func localizedText(_ value: LocalizedText, at field: String) throws(PolicyError) -> LocalizedText {
        guard let text = value.resolved(along: localeChain) else {
            throw PolicyError(
                kind: .missingTranslation, field: field, message: "no text for \(localeChain.joined(separator: ", ")); add an \"en\" entry")
        }
        return .plain(text)
    }

    /// Resolves every text of the action for the configured locale; an error names the field
    /// under `base` (`decision.title`, `decision.row.title`).
    private func localized(_ action: Decision.Action, at base: String = "decision") throws(PolicyError) -> Decision.Action {
        func text(_ value: LocalizedText, _ field: String) throws(PolicyError) -> LocalizedText {
            try localizedText(value, at: "\(base).\(field)")
        }
        // The address the device's language picks must be a page a link may open (the decision
        // readers check every translation; this holds for a host's own decisions too).
        func resolved(_ link: WebLink) throws(PolicyError) -> WebLink {
            let address = try text(link.address, "url")
            if case .plain(let url) = address, let problem = WebLink.problem(with: url) {
                throw PolicyError(kind: .invalidDecision, field: "\(base).url", message: problem)
            }
            return WebLink(text: try text(link.text, "link"), address: address)
        }
        func rows(_ rows: [InfoRow]) throws(PolicyError) -> [InfoRow] {
            var resolved: [InfoRow] = []
            for (index, row) in rows.enumerated() {
                resolved.append(
                    InfoRow(name: try text(row.name, "rows[\(index + 1)].name"), value: try text(row.value, "rows[\(index + 1)].value")))
            }
            return resolved
        }
        switch action {
        case .none, .requestPermission, .openSettings, .dismiss:
            return action
        case .inform(var page):
            page.title = try text(page.title, "title")
            if let message = page.message { page.message = try text(message, "message") }
            if let button = page.button { page.button = try text(button, "button") }
            if let open = page.open { page.open = try text(open, "open") }
            if let link = page.link { page.link = try resolved(link) }
            page.rows = try rows(page.rows)
            return .inform(page)
        case .softPrompt(var prompt):
            prompt.title = try text(prompt.title, "title")
            prompt.message = try text(prompt.message, "message")
            prompt.accept = try text(prompt.accept, "accept")
            if let decline = prompt.decline { prompt.decline = try text(decline, "decline") }
            if let link = prompt.link { prompt.link = try resolved(link) }
            return .softPrompt(prompt)
        case .settingsPrompt(var prompt):
            prompt.title = try text(prompt.title, "title")
            prompt.message = try text(prompt.message, "message")
            if let open = prompt.open { prompt.open = try text(open, "open") }
            if let cancel = prompt.cancel { prompt.cancel = try text(cancel, "cancel") }
            if let link = prompt.link { prompt.link = try resolved(link) }
            prompt.rows = try rows(prompt.rows)
            return .settingsPrompt(prompt)
        }
    }

    private func scheduleForegroundRechecks() {
        recheckTask?.cancel()
        let delays = configuration.foregroundRecheckDelays
        // The wait goes through the injected clock: real time in an app, a test's hand on a
        // manual clock.
        let clock = self.clock
        recheckTask = Task { [weak self] in
            for delay in delays {
                do { try await clock.sleep(seconds: delay) } catch { return }
                guard let self else { return }
                if await self.recheckFoundChange() { return }
            }
        }
    }

    /// One delayed re-read after a foreground; `true` when it found a different status.
    private func recheckFoundChange() async -> Bool {
        guard !Task.isCancelled, appIsActive else { return true }
        let before = published
        return await refresh() != before
    }

    @discardableResult
    private func saveLedger() -> String? {
        var failure: String?
        do {
            // Lent as `asking` lends the context: passed by value, the ledger was copied.
            try { (ledger: inout Ledger) throws(LedgerStoreError) in try store.save(ledger) }(&context.history)
        } catch {
            failure = error.description
        }
        guard keepsDurable else { return failure }
        let keys = policy.durableKeys
        // The common case on every event: a policy that keeps nothing, on iOS 10+, with no item
        // stored. Nothing to build or compare.
        if keys == .none, !ledger.legacyRegistered, durableSource.stored.isEmpty { return failure }
        // Unchanged, or nothing worth an item before or now: no Keychain call at all.
        guard durableSource.hasPartToWrite(of: &context.history, keeping: keys, lastSeenAt: lastSeenAt) else {
            return failure
        }
        do {
            try durableStore.saveDurable(durableSource.part)
            durableSource.written()
        } catch {
            // Not marked stored: the next event tries again, as the ledger store does.
            failure = [failure, error.description].compactMap(\.self).joined(separator: "; ")
        }
        return failure
    }

    private func unixNow() -> Int64 { Int64(clock.now().timeIntervalSince1970.rounded(.down)) }

    /// Waits for the gate while another event holds it (`busy`); the gate is then handed over
    /// still closed, in arrival order.
    private func waitForGate() async {
        await withCheckedContinuation { waiters.append($0) }
    }

    private func enterGate() async {
        if busy { await waitForGate() } else { busy = true }
    }

    /// Hands the gate to the next waiter in arrival order, or opens it.
    private func leaveGate() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}

/// What the engine put on the app's screen and is still up: the modal on top (a prompt or a
/// page of the app's own) and the inline row of the screen beneath it, each with the `id` the
/// policy gave it, and the request a soft prompt's accept led to. An answer goes to the modal
/// when one of its kind is up (it is on top, so the user answers it first), else to the row.
struct ShownPrompts {
    /// Which of the app's own UI something is: the answer event of each kind answers it.
    enum Kind {
        case soft, settings, inform
    }

    /// One prompt, row or page: its kind and the `id` the policy gave it.
    struct Shown {
        var kind: Kind
        var id: String?
    }

    /// The app's own prompt or page on top, until an answer closes it or a decision replaces or
    /// dismisses it.
    var modal: Shown?
    /// The inline row of the app's screen, beneath the modal when one is up.
    var row: Shown?
    /// The `id` of the soft prompt whose accept led to the pending request: the system dialog's
    /// answer carries it, so a policy knows which pre-prompt the answer followed.
    var request: String?
    /// The `id` of what the event being handled answered (`ctx.event.prompt_id`).
    var answered: String?

    /// Puts what `action` shows on screen: a modal in place of the modal, a row in place of the
    /// row; `dismiss` takes the modal away if one is up, else the row.
    mutating func show(_ action: Decision.Action) {
        let shown: Shown
        switch action {
        case .softPrompt(let prompt): shown = Shown(kind: .soft, id: prompt.id)
        case .settingsPrompt(let prompt): shown = Shown(kind: .settings, id: prompt.id)
        case .inform(let page): shown = Shown(kind: .inform, id: page.id)
        case .dismiss:
            if modal != nil { modal = nil } else { row = nil }
            return
        case .none, .requestPermission, .openSettings:
            return
        }
        if action.isInline { row = shown } else { modal = shown }
    }

    /// Puts a decision's `row` on screen in place of the row (`dismiss`: takes the row away),
    /// whatever modal is up.
    mutating func showRow(_ action: Decision.Action) {
        if action == .dismiss { row = nil } else { show(action) }
    }

    /// Notes what `event` answers (`answered`) and takes off screen what the answer closes.
    /// Returns whether it answered an inline soft prompt or settings row, which the ledger
    /// counts apart.
    mutating func answer(_ event: AppEvent) -> Bool {
        let kind: Kind
        // What the answer takes away: every answer but a web link closes a modal (an
        // information page's `open` leaves it up too); a row goes with its ✕ (`dismiss`), and an
        // information row with its button as well.
        let closesModal: Bool
        let closesRow: Bool
        switch event {
        case .softPromptAnswered(let answer):
            (kind, closesModal, closesRow) = (.soft, answer != .link, answer == .dismiss)
        case .settingsPromptAnswered(let answer):
            (kind, closesModal, closesRow) = (.settings, answer != .link, answer == .dismiss)
        case .informAnswered(let answer):
            let closes = answer == .ok || answer == .dismiss
            (kind, closesModal, closesRow) = (.inform, closes, closes)
        case .systemPromptAnswered:
            answered = request
            return false
        default:
            answered = nil
            return false
        }
        if let top = modal, top.kind == kind {
            answered = top.id
            if closesModal { modal = nil }
            return false
        }
        if let line = row, line.kind == kind {
            answered = line.id
            if closesRow { row = nil }
            return kind != .inform
        }
        answered = nil
        return false
    }
}
