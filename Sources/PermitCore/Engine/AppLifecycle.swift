/// Turns an app's life cycle into the engine's life-cycle events, the same way for SwiftUI's
/// scene phase and for UIKit's scene delegate (a scene-based app gets no
/// `applicationWillEnterForeground`), so that no transition is sent twice or missed:
///
/// - `app_launch` once per process, the first time the app comes to the foreground (a process
///   that iOS starts in the background, for a push, sends it when the user first opens it);
/// - `app_foreground` each time the app comes from the background to the foreground, the
///   first time included: a cold start sends `app_launch`, then `app_foreground`, once each;
/// - `app_background` when the app leaves the foreground (its last scene goes to the
///   background or is discarded).
///
/// Becoming inactive and active again without leaving the foreground (the system dialog,
/// Control Center, an incoming call) sends nothing: the app never left the screen, and the
/// answer to the dialog reaches the engine as `system_prompt_answered`.
///
/// A value type the app keeps on the main actor; each call returns the events to send, in order.
public struct AppLifecycle: Sendable {
    /// A scene's phase, as SwiftUI's `ScenePhase` and UIKit's scene activation state name them.
    public enum Phase: Sendable, Hashable {
        /// Not on screen.
        case background
        /// On screen, not receiving events (a system alert over it, during a transition).
        case inactive
        /// On screen and receiving events.
        case active
    }

    /// What reports a phase: SwiftUI's app-wide phase, or one of UIKit's scenes.
    private enum Reporter: Hashable {
        case app
        case scene(ObjectIdentifier)
    }

    /// Those in the foreground; the app is in the foreground while there is one.
    private var foreground: Set<Reporter> = []
    private var launched = false

    /// Nothing launched yet.
    public init() {}

    /// SwiftUI: the app's `scenePhase` (all its scenes together) is `phase`, read in the
    /// App's `onChange(of: scenePhase, initial: true)`.
    public mutating func phase(_ phase: Phase) -> [AppEvent] {
        update(.app, inForeground: phase != .background)
    }

    /// UIKit: a scene will enter the foreground (`sceneWillEnterForeground(_:)`, also called
    /// at a cold start).
    public mutating func sceneWillEnterForeground(_ scene: ObjectIdentifier) -> [AppEvent] {
        update(.scene(scene), inForeground: true)
    }

    /// UIKit: a scene went to the background or was discarded (`sceneDidEnterBackground(_:)`,
    /// `sceneDidDisconnect(_:)`).
    public mutating func sceneLeftForeground(_ scene: ObjectIdentifier) -> [AppEvent] {
        update(.scene(scene), inForeground: false)
    }

    private mutating func update(_ reporter: Reporter, inForeground: Bool) -> [AppEvent] {
        let wasForeground = !foreground.isEmpty
        if inForeground { foreground.insert(reporter) } else { foreground.remove(reporter) }
        switch (wasForeground, !foreground.isEmpty) {
        case (false, true) where !launched:
            launched = true
            return [.appLaunch, .appForeground]
        case (false, true): return [.appForeground]
        case (true, false): return [.appBackground]
        default: return []
        }
    }
}
