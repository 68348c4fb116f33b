import PermitCore

/// Makes the policy of a new run of the app's process: for a Lua policy a fresh VM from the
/// same source, as the app's cold start builds one.
public typealias PolicyFactory = @Sendable () throws(PolicyError) -> any Policy

/// One run of the app's process in a scenario: what it holds in memory, gone when it ends
/// (`terminate`, a reinstall, or the next `app_launch`, since iOS sends didFinishLaunching
/// once per process). Its engine carries the engine's in-memory state and the policy it was
/// made with (a fresh one at each cold start, its Lua globals empty); what it saved (the
/// ledger, the Keychain, the updatable policy's storage) stays with `ScenarioPlayback`.
struct ScenarioProcess {
    /// The engine of this process; it loaded the ledger the previous process saved.
    let engine: PermissionEngine
    /// Whether it handled an event yet: one that has not is no different from a new one, so
    /// an `app_launch` may keep it.
    var handledEvents = false
}
