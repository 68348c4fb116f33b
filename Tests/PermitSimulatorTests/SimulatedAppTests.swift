import Foundation
import PermitCore
import PermitSimulator
import Testing

/// The app on the simulated iPhone, as both players drive it: a process per launch over what
/// the last one saved, a reinstall that wipes the app's files, a Settings visit, and the
/// significant time change iOS queues while the app is suspended.
@Suite struct SimulatedAppTests {
    /// Counts the processes it made policies for and the ends and reinstalls it heard.
    final class Hook: PolicyPerProcess {
        let policy: any Policy
        let failing: Bool
        let log = Locked<[String]>([])

        init(_ policy: any Policy, failing: Bool = false) {
            self.policy = policy
            self.failing = failing
        }

        func policy(processSeed: UInt64) throws(PolicyError) -> any Policy {
            log.withLock { $0.append("process \(processSeed)") }
            if failing { throw PolicyError(kind: .load, message: "the main chunk failed") }
            return policy
        }

        var failedStartPolicy: (any Policy)? { nil }
        func processEnded() { log.withLock { $0.append("ended") } }
        func appReinstalled() { log.withLock { $0.append("reinstalled") } }
    }

    static let quiet = ClosurePolicy(name: "quiet") { _ in Decision(.none) }
    static let asking = ClosurePolicy(name: "asking") { context in
        context.event == .appLaunch ? Decision(.requestPermission(options: [.alert, .sound, .badge])) : Decision(.none)
    }

    func app(os: String = "16.0", policy: any Policy = quiet, hook: Hook? = nil) -> (SimulatedApp, Hook) {
        let clock = ManualClock(start)
        let device = try! SimulatedDevice(platform: platform(os), clock: clock)
        let hook = hook ?? Hook(policy)
        let app = SimulatedApp(
            device: device, clock: clock, configuration: EngineConfiguration(foregroundRechecks: []), policies: hook)
        return (app, hook)
    }

    /// Opens the app: a launch, then `app_launch` on the new process's engine.
    func open(_ app: inout SimulatedApp, seed: UInt64 = 0) async throws -> SimulatedApp.Foreground {
        try await app.launch(processSeed: seed)
        let engine = try #require(app.engine)
        return await app.foreground(sending: .appLaunch, on: engine)
    }

    @Test func eachLaunchAfterAnEventIsANewProcessOverWhatTheLastSaved() async throws {
        var (app, hook) = app()
        #expect(app.process == nil)
        _ = try await open(&app, seed: 7)
        let first = try #require(app.engine)
        _ = await app.background(on: first)
        app.advance(by: hour)
        let launch = try await app.launch(processSeed: 8)
        let second = try #require(app.engine)
        #expect(launch.newProcess && first !== second)
        // The new engine loaded the ledger the first one saved: this is the second launch.
        _ = await app.foreground(sending: .appLaunch, on: second)
        #expect(await second.history.launches == 2)
        #expect(hook.log.current == ["process 7", "ended", "process 8"])
    }

    @Test func aLaunchKeepsAProcessThatHandledNoEvent() async throws {
        var (app, hook) = app()
        try app.startProcess(processSeed: 1)
        let untouched = try #require(app.engine)
        let launch = try await app.launch(processSeed: 2)
        #expect(!launch.newProcess && app.engine === untouched)
        #expect(hook.log.current == ["process 1"])
    }

    @Test func terminateEndsTheProcessAndTheStatusItReadStays() async throws {
        var (app, hook) = app(policy: Self.asking)
        let opened = try await open(&app)
        #expect(opened.outcome.dialogShown && app.device.isDialogOnScreen)
        _ = try app.device.answerDialog(allow: true)
        let engine = try #require(app.engine)
        _ = await app.send(.systemPromptAnswered(granted: true), on: engine)
        await app.terminate()
        #expect(app.process == nil && app.engine == nil && !app.device.isInForeground)
        #expect(app.status == .authorized)
        #expect(hook.log.current.last == "ended")
    }

    @Test func aPolicyThatCannotStartLeavesNoProcess() async throws {
        let hook = Hook(Self.quiet, failing: true)
        var (app, _) = app(hook: hook)
        await #expect(throws: PolicyError.self) { try await app.launch() }
        #expect(app.process == nil)
    }

    @Test func leavingWithTheDialogUpClosesItAndTheAppHearsTheAnswer() async throws {
        var (app, _) = app(policy: Self.asking)
        _ = try await open(&app)
        let engine = try #require(app.engine)
        let left = await app.background(on: engine)
        // The default reading (D-02): the dialog closes unanswered, the request completes false.
        #expect(left.dialog == .closed(authorization: .notDetermined))
        #expect(left.answer?.event == .systemPromptAnswered(granted: false))
        #expect(!app.device.isDialogOnScreen && app.device.authorization == .notDetermined)
    }

    @Test func aReinstallWipesTheFilesAndTheNextLaunchStartsAfresh() async throws {
        var (app, hook) = app()
        _ = try await open(&app)
        await app.terminate()
        #expect(app.files.ledger.launches == 1)
        let done = await app.reinstall()
        // iOS 10+: a reinstall forgets the answer (I-01); the Keychain survives (K-01).
        #expect(!done.systemRemembers && done.keychainSurvives)
        #expect(app.files.ledger.launches == 0 && app.process == nil && app.status == .unknown)
        _ = try await open(&app)
        #expect(await app.engine?.history.launches == 1)
        #expect(hook.log.current.contains("reinstalled"))
    }

    /// iOS 8–9 keeps the answer unless the app stayed deleted for a day (K-01), counted from
    /// when a process last existed as time passed.
    @Test(arguments: [(hour, true), (25 * hour, false)])
    func onIOS9TheSystemRemembersOnlyAShortDeletion(gap: TimeInterval, remembers: Bool) async throws {
        var (app, _) = app(os: "9.3")
        _ = try await open(&app)
        app.advance(by: 60)
        await app.terminate()
        app.advance(by: gap)
        #expect(await app.reinstall().systemRemembers == remembers)
    }

    @Test func aTimeChangeWhileSuspendedIsHeardOnceAtTheNextForeground() async throws {
        var (app, _) = app()
        _ = try await open(&app)
        let engine = try #require(app.engine)
        _ = await app.background(on: engine)
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        guard case .queued = await app.changeTimeZone(to: tokyo) else { Issue.record("not queued"); return }
        guard case .queued = await app.changeTimeZone(to: berlin) else { Issue.record("not queued"); return }
        // Two changes coalesce into one, with the zone the device is in now.
        let back = await app.foreground(on: engine)
        #expect(back.timeChange?.zone == berlin)
        #expect(back.timeChange?.outcome.event == .significantTimeChange(timeZone: berlin))
        #expect(back.outcome.event == .appForeground)
        _ = await app.background(on: engine)
        #expect(await app.foreground(on: engine).timeChange == nil)
    }

    @Test func aColdLaunchDropsTheQueuedChangeAndReadsTheZoneItself() async throws {
        var (app, _) = app()
        _ = try await open(&app)
        let engine = try #require(app.engine)
        _ = await app.background(on: engine)
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        _ = await app.changeTimeZone(to: tokyo)
        #expect(app.queuedTimeChange == tokyo)
        let opened = try await open(&app)
        #expect(opened.timeChange == nil && app.queuedTimeChange == nil)
        #expect(await app.engine?.configuration.timeZone == tokyo)
    }

    @Test func aTimeChangeInTheForegroundIsHeardAtOnceAndWithoutAProcessNotAtAll() async throws {
        var (app, _) = app()
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        guard case .notRunning = await app.changeTimeZone(to: tokyo) else { Issue.record("heard without a process"); return }
        _ = try await open(&app)
        guard case .heard(let outcome) = await app.changeTimeZone(to: TimeZone(identifier: "UTC")!) else {
            Issue.record("not heard in the foreground")
            return
        }
        #expect(outcome.event == .significantTimeChange(timeZone: TimeZone(identifier: "UTC")!))
        #expect(app.queuedTimeChange == nil)
    }

    /// The user denies, goes to Settings, turns notifications on and comes back: the app reads
    /// the change on its return.
    @Test func aSettingsVisitIsReadOnTheReturn() async throws {
        var (app, _) = app(policy: Self.asking)
        _ = try await open(&app)
        let engine = try #require(app.engine)
        _ = await app.send(.systemPromptAnswered(granted: try app.device.answerDialog(allow: false)), on: engine)
        #expect(app.status == .denied)
        app.leaveForSettings()
        #expect(!app.device.isInForeground)
        try app.changeInSettings(authorization: .authorized)
        #expect(app.status == .denied, "the app hears nothing while it is away")
        let back = await app.foreground(on: engine)
        #expect(back.outcome.statusAfter == .authorized && app.device.isInForeground)
    }

    /// The app's own prompt survives leaving and coming back (U-01), and goes with the process.
    @Test func theAppsOwnPromptStaysForTheReturnAndGoesWithTheProcess() async throws {
        let prompt = SoftPrompt(title: "Stay in the loop", message: "Reminders", accept: "Sure", decline: "Not now")
        let policy = ClosurePolicy(name: "primer") { context in
            context.event == .appLaunch ? Decision(.softPrompt(prompt)) : Decision(.none)
        }
        var (app, _) = app(policy: policy)
        let opened = try await open(&app)
        _ = app.show(after: opened.outcome, userOnlyLeft: false)
        #expect(app.screen == .softPrompt(linked: false))
        let engine = try #require(app.engine)
        let left = await app.background(on: engine)
        #expect(app.show(after: left.outcome, userOnlyLeft: true)?.kept == .softPrompt(linked: false))
        let back = await app.foreground(on: engine)
        #expect(app.show(after: back.outcome, userOnlyLeft: true)?.kept == .softPrompt(linked: false))
        #expect(await app.terminate() == .softPrompt(linked: false))
        #expect(app.screen == .nothing)
    }

    /// The system dialog an inline row's accept brings up goes over the row: once the dialog
    /// is answered the row is on screen again; a new process has neither.
    @Test func theRowTheDialogCameOverIsBackWhenTheDialogGoes() async throws {
        let row = SoftPrompt(
            title: "Know when replies arrive", message: "Turn on notifications.", accept: "Turn on", decline: nil,
            presentation: .inline)
        let policy = ClosurePolicy(name: "row") { context in
            switch context.event {
            case .appLaunch: Decision(.softPrompt(row))
            case .softPromptAnswered: Decision(.requestPermission(options: [.alert]))
            default: Decision(.none)
            }
        }
        var (app, _) = app(policy: policy)
        _ = app.show(after: try await open(&app).outcome, userOnlyLeft: false)
        #expect(app.screen == .inlineSoftPrompt(linked: false))
        let engine = try #require(app.engine)
        _ = app.show(after: await app.send(.softPromptAnswered(.accept), on: engine), userOnlyLeft: false)
        #expect(app.screen == .systemDialog && app.rowBeneath == .inlineSoftPrompt(linked: false))
        let granted = try app.device.answerDialog(allow: true)
        app.clearScreen()
        #expect(app.screen == .inlineSoftPrompt(linked: false) && app.rowBeneath == nil)
        _ = app.show(after: await app.send(.systemPromptAnswered(granted: granted), on: engine), userOnlyLeft: false)
        #expect(app.screen == .inlineSoftPrompt(linked: false))
        #expect(await app.terminate() == .inlineSoftPrompt(linked: false))
        #expect(app.screen == .nothing && app.rowBeneath == nil)
    }

    /// A modal goes over a row, which is on screen again when the modal closes; a new row
    /// replaces the row beneath the modal; `dismiss` takes the modal, then the row.
    @Test func aModalGoesOverTheRowAndDismissTakesTheModalFirst() async throws {
        let row = SettingsPrompt(title: "Off", message: "Fix now", open: nil, cancel: nil, presentation: .inline)
        let modal = SoftPrompt(title: "Stay in the loop", message: "Reminders", accept: "Sure", decline: "Not now")
        let policy = ClosurePolicy(name: "layers") { context in
            switch context.event {
            case .appLaunch, .featureOpened("row"): Decision(.settingsPrompt(row))
            case .featureOpened("modal"): Decision(.softPrompt(modal))
            case .featureOpened("label"): Decision(.inform(InformPage(title: "Off", message: nil, button: nil, presentation: .inline)))
            case .featureClosed: Decision(.dismiss)
            default: Decision(.none)
            }
        }
        var (app, _) = app(policy: policy)
        _ = app.show(after: try await open(&app).outcome, userOnlyLeft: false)
        let engine = try #require(app.engine)
        func send(_ event: AppEvent) async -> SimulatedApp.ScreenUpdate? {
            app.show(after: await app.send(event, on: engine), userOnlyLeft: false)
        }
        _ = await send(.featureOpened("modal"))
        #expect(app.screen == .softPrompt(linked: false) && app.rowBeneath == .inlineSettingsPrompt(linked: false))
        _ = await send(.featureOpened("label"))
        #expect(app.screen == .softPrompt(linked: false) && app.rowBeneath == .label, "a new row replaces the row beneath")
        #expect(await send(.featureClosed("x"))?.dismissed == .softPrompt(linked: false))
        #expect(app.screen == .label && app.rowBeneath == nil)
        #expect(await send(.featureClosed("x"))?.dismissed == .label)
        #expect(app.screen == .nothing)
        _ = await send(.featureOpened("row"))
        _ = await send(.featureOpened("modal"))
        app.clearScreen()
        #expect(app.screen == .inlineSettingsPrompt(linked: false), "answered, the modal goes and the row is there")
    }

    /// A decision's `row` goes beneath its modal, and beneath the system dialog of a request;
    /// with `dismiss` it takes the place of the row there once the modal is gone.
    @Test func aDecisionsRowGoesBeneathItsModal() async throws {
        let row = SettingsPrompt(title: "Off", message: "Fix now", open: nil, cancel: nil, presentation: .inline)
        let label = InformPage(title: "All on", message: nil, button: nil, presentation: .inline)
        let modal = SoftPrompt(title: "Stay in the loop", message: "Reminders", accept: "Sure", decline: "Not now")
        @Sendable func with(_ action: Decision.Action, row: Decision.Action) -> Decision {
            var decision = Decision(action)
            decision.row = row
            return decision
        }
        let policy = ClosurePolicy(name: "rows") { context in
            switch context.event {
            case .featureOpened("check"): with(.softPrompt(modal), row: .settingsPrompt(row))
            case .featureOpened("fixed"): with(.dismiss, row: .inform(label))
            default: Decision(.none)
            }
        }
        var (app, _) = app(policy: policy)
        _ = app.show(after: try await open(&app).outcome, userOnlyLeft: false)
        let engine = try #require(app.engine)
        func send(_ event: AppEvent) async -> SimulatedApp.ScreenUpdate? {
            app.show(after: await app.send(event, on: engine), userOnlyLeft: false)
        }
        _ = await send(.featureOpened("check"))
        #expect(app.screen == .softPrompt(linked: false) && app.rowBeneath == .inlineSettingsPrompt(linked: false))
        // The modal taken away: the row is there; a dismiss with a row then replaces it.
        #expect(await send(.featureOpened("fixed"))?.dismissed == .softPrompt(linked: false))
        #expect(app.screen == .label && app.rowBeneath == nil)
        _ = await send(.featureOpened("check"))
        #expect(app.screen == .softPrompt(linked: false) && app.rowBeneath == .inlineSettingsPrompt(linked: false))
        app.clearScreen()
        #expect(app.screen == .inlineSettingsPrompt(linked: false))
        #expect(await send(.featureOpened("fixed"))?.dismissed == .inlineSettingsPrompt(linked: false))
        #expect(app.screen == .label && app.rowBeneath == nil)
    }
}
