import Foundation
import PermitSimulator
import Testing

@testable import PermitCore

/// `background_refresh`: the app runs in the background, reads what the user changed in
/// Settings meanwhile, plans reminders while granted, and shows nothing.
@Suite struct EngineBackgroundRefreshTests {
    /// A change made in Settings while the app is away is read at the run in the background,
    /// and reminders are planned once it is granted, as at a return to the foreground.
    @Test func readsTheStatusAndPlansReminders() async throws {
        let world = World(os: "16.0", authorization: .denied, policy: politePolicy)
        _ = await world.engine.handle(.appLaunch)
        world.device.isInForeground = false
        _ = await world.engine.handle(.appBackground)
        try world.device.changeInSettings(authorization: .authorized)

        let refresh = await world.engine.handle(.backgroundRefresh)
        #expect(refresh.statusBefore == .denied && refresh.statusAfter == .authorized)
        #expect(refresh.remindersScheduled.count == 3)
        #expect(world.device.pending.count == 3)
        let history = await world.engine.history
        #expect(history.lastStatus == .authorized && history.deniedAt == nil)
        // Not counted as a launch or a foreground.
        #expect(history.launches == 1 && history.foregrounds == 0)
    }

    /// Whatever the engine believed before (a process iOS started in the background sends no
    /// `app_launch`), a prompt decided at a run in the background is voided with its reason,
    /// remembers nothing and counts nothing; a return to the foreground shows again.
    @Test func aPromptDecidedInTheBackgroundIsVoided() async {
        let world = World(
            os: "16.0",
            policy: ClosurePolicy { _ in
                Decision(.softPrompt(softPrompt), reason: "asks whenever", remember: ["asked": .bool(true)])
            })
        world.device.isInForeground = false
        let refresh = await world.engine.handle(.backgroundRefresh)
        #expect(refresh.statusAfter == .notDetermined)
        #expect(refresh.proposed?.action == .softPrompt(softPrompt))
        #expect(refresh.decision.action == .none)
        #expect(refresh.warnings.map(\.name) == ["app-not-active"])
        #expect(refresh.warnings.first?.message == "the app runs in the background, with no one to see a soft prompt")
        let history = await world.engine.history
        #expect(history.softPrompt.shown == 0 && history.state["asked"] == nil)
        #expect(await !world.engine.isAppActive)

        world.device.isInForeground = true
        let back = await world.engine.handle(.appForeground)
        #expect(back.decision.action == .softPrompt(softPrompt) && back.warnings.isEmpty)
    }

    /// Settings may not open at a run in the background: the user tapped nothing.
    @Test func settingsDoNotOpen() async {
        let world = World(
            os: "16.0", authorization: .denied,
            policy: ClosurePolicy { ctx in ctx.event == .backgroundRefresh ? Decision(.openSettings(.appSettings)) : nil })
        _ = await world.engine.handle(.appLaunch)
        let refresh = await world.engine.handle(.backgroundRefresh)
        #expect(refresh.decision.action == .none)
        #expect(refresh.warnings.map(\.name) == ["open-settings-not-user-initiated"])
    }
}
