import Foundation
import Testing

@testable import PermitCore

/// What shipped apps do with notification permission, as the engine carries it out: rows inside
/// a screen, a tap that opens Settings, a request at every launch, push registration the app
/// decides. Each test checks what a host (and its analytics) relies on.
@Suite struct RealAppIdiomsTests {
    static var inlineRow: SettingsPrompt {
        var row = settingsPrompt(.notificationSettings)
        row.presentation = .inline
        row.cancel = nil
        return row
    }

    /// A notifications screen that shows a row while notifications are off, a modal prompt
    /// on the "alerts" screen, and Settings at once for a "turn on" tap.
    static let rowPolicy = ClosurePolicy(name: "rows") { ctx in
        switch ctx.event {
        case .featureOpened("notifications"): Decision(.settingsPrompt(inlineRow), reason: "the row")
        case .featureOpened("alerts"): Decision(.settingsPrompt(settingsPrompt), reason: "a dialog")
        case .featureOpened("turn_on"), .appLaunch: Decision(.openSettings(.notificationSettings), reason: "tap")
        default: nil
        }
    }

    /// Five visits to the row in a day: five rows, no warning, no prompt of the day; acting on
    /// it counts apart, and a dialog shown later counts as a prompt again.
    @Test func anInlineRowEveryVisitIsNoPromptAndCountsApart() async throws {
        let world = World(authorization: .denied, policy: Self.rowPolicy)
        _ = await world.engine.handle(.appBackground)
        for _ in 0..<5 {
            world.advance(hour)
            let visit = await world.engine.handle(.featureOpened("notifications"))
            #expect(visit.decision.action == .settingsPrompt(Self.inlineRow))
            #expect(visit.warnings.isEmpty)
        }
        var history = await world.engine.history
        #expect(history.promptsToday == 0)
        #expect(history.settingsPrompt.inlineShown == 5 && history.settingsPrompt.shown == 0)
        #expect(history.settingsPrompt.lastShownAt == nil)

        _ = await world.engine.handle(.settingsPromptAnswered(.open))
        history = await world.engine.history
        #expect(history.settingsPrompt.inlineActed == 1 && history.settingsPrompt.opened == 0)

        let dialog = await world.engine.handle(.featureOpened("alerts"))
        #expect(dialog.decision.action == .settingsPrompt(settingsPrompt))
        _ = await world.engine.handle(.settingsPromptAnswered(.open))
        history = await world.engine.history
        #expect(history.promptsToday == 1 && history.settingsPrompt.shown == 1)
        #expect(history.settingsPrompt.opened == 1 && history.settingsPrompt.inlineActed == 1)
    }

    /// An inline soft prompt row: accepting it counts `inline_acted`, not `accepted`.
    @Test func acceptingAnInlineSoftPromptRowCountsApart() async {
        var inline = softPrompt
        inline.presentation = .inline
        inline.decline = nil
        let row = inline
        let policy = ClosurePolicy { ctx in
            if case .featureOpened = ctx.event { return Decision(.softPrompt(row)) }
            return nil
        }
        let world = World(policy: policy)
        _ = await world.engine.handle(.appLaunch)
        let shown = await world.engine.handle(.featureOpened("chats"))
        #expect(shown.decision.action == .softPrompt(row) && shown.warnings.isEmpty)
        _ = await world.engine.handle(.softPromptAnswered(.accept))
        let history = await world.engine.history
        #expect(history.softPrompt.inlineShown == 1 && history.softPrompt.shown == 0)
        #expect(history.softPrompt.inlineActed == 1 && history.softPrompt.accepted == 0)
        #expect(history.promptsToday == 0)
    }

    /// `open_settings` from a tap goes through and counts as Settings opened; at launch it is
    /// refused with its warning and counts nothing.
    @Test func openSettingsFromATapNotAtLaunch() async {
        let world = World(authorization: .denied, policy: Self.rowPolicy)
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.decision.action == .none)
        #expect(launch.warnings.map(\.name) == ["open-settings-not-user-initiated"])
        #expect(await world.engine.history.settingsPrompt.opened == 0)

        let tap = await world.engine.handle(.featureOpened("turn_on"))
        #expect(tap.decision.action == .openSettings(.notificationSettings))
        #expect(tap.warnings.isEmpty)
        let history = await world.engine.history
        #expect(history.settingsPrompt.opened == 1 && history.promptsToday == 0)
    }

    /// docs/platform.md N-03: a request at every launch. After the first answer iOS answers at
    /// once; the engine carries the request out, with no warning, and the policy hears the answer.
    @Test(arguments: [PermissionStatus.authorized, .denied])
    func aRequestAtEveryLaunchIsAnsweredAtOnceWithoutAWarning(status: PermissionStatus) async {
        let heard = Locked<[AppEvent]>([])
        let policy = ClosurePolicy { ctx in
            heard.withLock { $0.append(ctx.event) }
            if case .appLaunch = ctx.event { return Decision(.requestPermission(options: [.alert, .badge])) }
            return nil
        }
        let world = World(authorization: status, policy: policy)
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.decision.action == .requestPermission(options: [.alert, .badge]))
        #expect(launch.warnings.isEmpty && launch.followUps.allSatisfy(\.warnings.isEmpty))
        #expect(!launch.dialogShown)
        #expect(launch.immediateAnswer == status.isGranted)
        #expect(heard.withLock { $0 } == [.appLaunch, .systemPromptAnswered(granted: status.isGranted)])
        let history = await world.engine.history
        #expect(history.systemPrompt.requested == 1 && history.systemPrompt.shown == 0 && history.promptsToday == 0)
    }

    /// The default follows Apple (register at every launch, whatever the status, and when
    /// granted); the policy's `remote_registration` replaces it for its event.
    @Test func remoteRegistrationDefaultsToEveryLaunchAndThePolicyDecides() async throws {
        let choice = Locked<RemoteRegistration?>(nil)
        let policy = ClosurePolicy { ctx in
            var decision = Decision(.none)
            decision.remoteRegistration = choice.withLock { $0 }
            if case .featureOpened = ctx.event { decision.action = .requestPermission(options: [.alert]) }
            return decision
        }
        let world = World(policy: policy)
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.statusAfter == .notDetermined)
        #expect(launch.registerForRemoteNotifications && !launch.unregisterForRemoteNotifications)
        _ = await world.engine.handle(.featureOpened("chats"))
        let granted = try await world.answerDialog(allow: true)
        #expect(granted.registerForRemoteNotifications)

        choice.withLock { $0 = .unregister }
        let off = await world.engine.handle(.appForeground)
        #expect(!off.registerForRemoteNotifications && off.unregisterForRemoteNotifications)
        choice.withLock { $0 = .keep }
        let kept = await world.engine.handle(.appLaunch)
        #expect(!kept.registerForRemoteNotifications && !kept.unregisterForRemoteNotifications)
        choice.withLock { $0 = .register }
        let on = await world.engine.handle(.appBackground)
        #expect(on.registerForRemoteNotifications && !on.unregisterForRemoteNotifications)
    }

    /// A decision a guardrail voided has no say over registration: the default applies.
    @Test func aVoidedDecisionKeepsTheDefaultRegistration() async {
        let policy = ClosurePolicy { _ in
            var decision = Decision(.openSettings(.appSettings))
            decision.remoteRegistration = .unregister
            return decision
        }
        let world = World(authorization: .denied, policy: policy)
        let launch = await world.engine.handle(.appLaunch)
        #expect(launch.decision == .none)
        #expect(launch.registerForRemoteNotifications && !launch.unregisterForRemoteNotifications)
    }
}
