/// What of the ledger a policy keeps across a reinstall (`remember_durable`,
/// docs/reference/policy.md#policy-remember-durable).
///
/// Deleting an app wipes its files and defaults, but on iOS its Keychain items have so far
/// survived (docs/platform.md, rule R-02). A policy names the few facts that must outlive a
/// reinstall, such as the settings prompts already shown or a counter of its own, and a
/// `DurableStore` keeps just those. Everything else starts afresh, as users expect of a new
/// install. The iOS 8–9 asked-flag is always kept: without it, "denied" reads as "not asked"
/// after a reinstall.
public struct DurableKeys: Sendable, Hashable {
    /// Histories of `ctx.history` kept whole.
    public var histories: Set<DurableHistory>
    /// Keys of `ctx.state` (what `remember` stores) kept across a reinstall.
    public var state: Set<String>

    /// The most state keys a policy may mark durable: a Keychain item should stay small.
    public static let stateKeyLimit = 16

    /// Keys to keep; none by default.
    public init(histories: Set<DurableHistory> = [], state: Set<String> = []) {
        self.histories = histories
        self.state = state
    }

    /// Nothing but the asked-flag survives.
    public static let none = DurableKeys()
}
