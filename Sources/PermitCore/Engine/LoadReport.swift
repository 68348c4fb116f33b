/// What loading the stores reported, for the engine's host.
struct LoadReport: Sendable {
    /// Damage set aside, items from newer builds.
    var warnings: [String] = []
    /// Whether the durable part of an earlier install came back into a fresh ledger.
    var restored = false
    /// Why the stores could not be read, while they cannot.
    var unreadable: String?
}
