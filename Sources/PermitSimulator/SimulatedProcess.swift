import PermitCore

/// One run of the app's process: what it holds in memory, gone when it ends (terminated,
/// deleted, or replaced by a cold launch, since iOS sends didFinishLaunching once per
/// process). Its engine carries the engine's in-memory state and the policy it was made with
/// (a fresh one at each cold start); what it saved (the ledger, the Keychain) stays with the
/// `SimulatedApp`.
public struct SimulatedProcess: Sendable {
    /// The engine of this process; it loaded the ledger the previous process saved.
    public let engine: PermissionEngine
    /// Whether it handled an event yet: one that has not is no different from a new one, so
    /// a launch may keep it.
    public internal(set) var handledEvents = false
}
