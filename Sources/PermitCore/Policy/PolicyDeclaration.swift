/// What a policy says about itself, as opposed to the calls it answers: the facts the engine,
/// the tools and the reports read.
///
/// One value so that a policy wrapping another passes every fact on in one line
/// (`inner.declaration`), and a fact added here reaches every wrapper without a change to it.
/// A wrapper that changes a fact (a delivered bundle's version) changes that field of the
/// inner policy's declaration and keeps the rest.
public struct PolicyDeclaration: Sendable, Equatable {
    /// The policy's name, for reports.
    public var name: String
    /// The policy's version for decision records: a bundle's version; `nil` for a policy from
    /// a file or built in.
    public var version: Int64?
    /// Whether `planReminders` does anything; when `false` the engine skips it.
    public var plansReminders: Bool
    /// What of the ledger survives a reinstall (`remember_durable`); read at every save, so a
    /// delivered policy may change it.
    public var durableKeys: DurableKeys
    /// The experiments the policy declares; the engine assigns each install an arm of each.
    /// Compared per event, so a policy keeps the same array while it does not change.
    public var experiments: [Experiment]
    /// The app events of its own the policy declares it understands (`events = { ... }`), so
    /// tools refuse a misspelt one; empty when it declares none.
    public var declaredEvents: [String]

    /// A declaration; what is not given is what a policy that never mentions it means: no
    /// version, no reminders, nothing but the iOS 8–9 asked-flag kept across a reinstall, no
    /// experiments, no events of the app's own.
    public init(
        name: String, version: Int64? = nil, plansReminders: Bool = false, durableKeys: DurableKeys = .none,
        experiments: [Experiment] = [], declaredEvents: [String] = []
    ) {
        self.name = name
        self.version = version
        self.plansReminders = plansReminders
        self.durableKeys = durableKeys
        self.experiments = experiments
        self.declaredEvents = declaredEvents
    }
}
