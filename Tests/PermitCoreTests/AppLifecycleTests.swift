import Testing

@testable import PermitCore

/// What a host's life-cycle shim sends: `app_launch` and `app_foreground` once each on a cold
/// start, whichever phases iOS reports, and nothing for a dialog or Control Center.
@Suite struct AppLifecycleTests {
    /// SwiftUI reports the app's phase with `onChange(of:initial:)`: first `background` or
    /// `inactive`, then `active`. The cold start is one launch and one foreground either way.
    @Test(arguments: [[AppLifecycle.Phase.background, .inactive, .active], [.inactive, .active], [.active]])
    func aColdStartSendsLaunchAndForegroundOnceEach(phases: [AppLifecycle.Phase]) {
        var lifecycle = AppLifecycle()
        #expect(phases.flatMap { lifecycle.phase($0) } == [.appLaunch, .appForeground])
    }

    /// The system dialog, Control Center or a call make the app inactive and active again; it
    /// never left the screen, so nothing is sent. Home and back is a background and a foreground.
    @Test func onlyLeavingTheScreenAndComingBackAreEvents() {
        var lifecycle = AppLifecycle()
        _ = lifecycle.phase(.active)
        #expect(lifecycle.phase(.inactive).isEmpty)
        #expect(lifecycle.phase(.active).isEmpty)
        #expect(lifecycle.phase(.inactive).isEmpty)
        #expect(lifecycle.phase(.background) == [.appBackground])
        #expect(lifecycle.phase(.background).isEmpty)
        #expect(lifecycle.phase(.inactive) == [.appForeground])
        #expect(lifecycle.phase(.active).isEmpty)
    }

    /// A process iOS starts in the background (a push) sends nothing until the user opens the
    /// app; then it is the launch.
    @Test func aBackgroundLaunchWaitsForTheFirstForeground() {
        var lifecycle = AppLifecycle()
        #expect(lifecycle.phase(.background).isEmpty)
        #expect(lifecycle.phase(.active) == [.appLaunch, .appForeground])
    }

    /// UIKit's scene delegate reports each scene: the app is in the foreground while any scene
    /// is, so a second window (iPad) sends nothing, and the app leaves when the last one does.
    @Test func scenesTogetherAreOneApp() {
        final class Scene {}
        let first = Scene(), second = Scene()
        var lifecycle = AppLifecycle()
        #expect(lifecycle.sceneWillEnterForeground(ObjectIdentifier(first)) == [.appLaunch, .appForeground])
        #expect(lifecycle.sceneWillEnterForeground(ObjectIdentifier(second)).isEmpty)
        #expect(lifecycle.sceneWillEnterForeground(ObjectIdentifier(first)).isEmpty)
        #expect(lifecycle.sceneLeftForeground(ObjectIdentifier(first)).isEmpty)
        #expect(lifecycle.sceneLeftForeground(ObjectIdentifier(second)) == [.appBackground])
        #expect(lifecycle.sceneLeftForeground(ObjectIdentifier(second)).isEmpty)  // then discarded
        #expect(lifecycle.sceneWillEnterForeground(ObjectIdentifier(second)) == [.appForeground])
    }
}
