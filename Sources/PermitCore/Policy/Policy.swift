import Foundation

/// A prompting policy: the engine asks it what to do and keeps the guardrails itself.
///
/// The core does not know Lua: `PermitLua.LuaPolicy` implements this for scripts, and tests
/// use `ClosurePolicy`. Implementations must be safe to call from any thread (a Lua policy
/// guards its VM with a lock).
public protocol Policy: Sendable {
    /// The policy's name, for reports.
    var name: String { get }
    /// Whether `planReminders` does anything; when `false` the engine skips it.
    var plansReminders: Bool { get }
    /// What of the ledger survives a reinstall (`remember_durable`); read at every save, so
    /// a delivered policy may change it.
    var durableKeys: DurableKeys { get }
    /// The experiments the policy declares; the engine assigns each install an arm of each.
    /// Return the same array every time (a stored property): the engine compares it per event.
    var experiments: [Experiment] { get }
    /// The policy's version for decision records: a bundle's version; `nil` for a policy from
    /// a file or built in.
    var version: Int64? { get }
    /// The decision for one event, or `nil` for none.
    func decide(_ context: PolicyContext) throws(PolicyError) -> Decision?
    /// Reminders to schedule; called after `decide` while the status is granted.
    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest]
    /// Checks host or scenario overrides against the params the policy declares (unknown
    /// names, wrong types), so a typo fails loudly instead of being ignored.
    func validate(params: [String: PolicyValue]) throws(PolicyError)
    /// The app events of its own the policy declares it understands (`events = { ... }`), so
    /// tools refuse a misspelt one; empty when it declares none.
    var declaredEvents: [String] { get }
    /// What the host does about remote notifications after a decision that does not say
    /// (`remote_registration` on the policy: "this app never uses APNs" said once); `nil`
    /// follows Apple's guidance (`Outcome.registersForRemoteNotifications`).
    var remoteRegistration: RemoteRegistration? { get }
    /// What the policy printed since the last call, for reports; empty when nothing was.
    func takeTrace() -> String
    /// `decide` and then `takeTrace`, as one call: what the engine asks for every event. The
    /// default does exactly that; a policy behind a lock (a Lua VM) answers under one lock.
    func answer(_ context: PolicyContext) -> PolicyAnswer
    /// Called once an event with errors is fully handled, with every policy error of it, including those
    /// the engine found after the policy returned (a text without a translation, state over
    /// 4 KiB, reminders the planner refused), so a wrapper can judge the policy's health.
    func eventHandled(errors: [PolicyError])
}

/// What a policy answered for one event, and what it printed while answering.
public struct PolicyAnswer: Sendable {
    /// The decision, or why there is none.
    public var decision: Result<Decision?, PolicyError>
    /// What the policy printed meanwhile.
    public var trace: String

    /// An answer and its trace.
    public init(decision: Result<Decision?, PolicyError>, trace: String) {
        self.decision = decision
        self.trace = trace
    }
}

extension Policy {
    /// Calls `decide`, then `takeTrace`.
    public func answer(_ context: PolicyContext) -> PolicyAnswer {
        let decision = Result { () throws(PolicyError) -> Decision? in try decide(context) }
        return PolicyAnswer(decision: decision, trace: takeTrace())
    }

    /// No reminders unless the policy says so.
    public var plansReminders: Bool { false }
    /// Nothing but the iOS 8–9 asked-flag survives a reinstall unless the policy says so.
    public var durableKeys: DurableKeys { .none }
    /// No experiments.
    public var experiments: [Experiment] { [] }
    /// No version.
    public var version: Int64? { nil }
    /// Accepts any params: a policy without declared params has nothing to check.
    public func validate(params: [String: PolicyValue]) throws(PolicyError) {}
    /// Nothing printed.
    public func takeTrace() -> String { "" }
    /// No events of the app's own.
    public var declaredEvents: [String] { [] }
    /// No default of its own: each decision's `remote_registration`, or Apple's guidance.
    public var remoteRegistration: RemoteRegistration? { nil }
    /// Ignores the errors: only a wrapper that judges health needs them.
    public func eventHandled(errors: [PolicyError]) {}
    /// No reminders.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] { [] }
}

/// Which lines of a policy file have code, and which of them ran.
public struct LineCoverage: Sendable, Hashable {
    /// The policy file as reports name it.
    public var file: String
    /// Lines with code.
    public var executable: Set<Int>
    /// Lines that ran.
    public var covered: Set<Int>

    /// Coverage of `file`.
    public init(file: String, executable: Set<Int>, covered: Set<Int>) {
        self.file = file
        self.executable = executable
        self.covered = covered
    }

    /// Lines with code that never ran, in order.
    public var missed: [Int] { executable.subtracting(covered).sorted() }

    /// Share of executable lines that ran, 0–100.
    public var percent: Double {
        executable.isEmpty ? 100 : Double(executable.intersection(covered).count) * 100 / Double(executable.count)
    }

    /// Combines the coverage of several runs of the same file.
    public func merged(with other: LineCoverage) -> LineCoverage {
        LineCoverage(file: file, executable: executable.union(other.executable), covered: covered.union(other.covered))
    }
}

/// A policy that can say which of its lines ran (Lua policies loaded with coverage on).
public protocol LineCoverageReporting {
    /// The coverage so far, or `nil` when it is not recorded.
    var lineCoverage: LineCoverage? { get }
}

/// Everything a policy sees for one event (`ctx`, docs/reference/policy.md#ctx).
public struct PolicyContext: Sendable {
    /// What happened (`ctx.event`).
    public var event: AppEvent
    /// The status after this event's read (`ctx.status`).
    public var status: PermissionStatus
    /// The status before this event's re-read; differs from `status` when the read found a change.
    public var previousStatus: PermissionStatus
    /// The granular settings (`ctx.settings`).
    public var settings: NotificationSettings
    /// The device (`ctx.platform`).
    public var platform: Platform
    /// What the device allows (`ctx.capabilities`).
    public var capabilities: Capabilities
    /// The ledger (`ctx.history`).
    public var history: Ledger
    /// Host or scenario overrides of the policy's params (the policy merges its defaults under them).
    public var params: [String: PolicyValue]
    /// Unix seconds from the injected clock.
    public var now: Int64
    /// BCP 47, e.g. `zh-Hans`.
    public var locale: String
    /// 0–99, stable per install, for A/B splits.
    public var userBucket: Int
    /// The wall-clock time of `now` in the device's zone (`ctx.local_time`).
    public var localTime: LocalTime
    /// The app's version, and the one before it after an update (`ctx.app`).
    public var app: AppInfo

    /// What the policy remembered (`ctx.state`), the same as `history.state`.
    public var state: [String: PolicyValue] { history.state }
    /// The install's arm of each experiment (`ctx.user.arms`), the same as `history.arms`.
    public var arms: [String: String] { history.arms }

    /// The context of one event; `capabilities` follow from `platform`; `localTime` defaults to
    /// `now` in UTC.
    public init(
        event: AppEvent, status: PermissionStatus, previousStatus: PermissionStatus,
        settings: NotificationSettings, platform: Platform, history: Ledger,
        params: [String: PolicyValue] = [:], now: Int64, locale: String = "en", userBucket: Int = 0,
        localTime: LocalTime? = nil, app: AppInfo = AppInfo()
    ) {
        self.app = app
        self.event = event
        self.status = status
        self.previousStatus = previousStatus
        self.settings = settings
        self.platform = platform
        self.capabilities = platform.capabilities
        self.history = history
        self.params = params
        self.now = now
        self.locale = locale
        self.userBucket = userBucket
        // Without a device zone, UTC: a context is never without a local time.
        self.localTime = localTime ?? LocalTime(utcOf: now)
    }
}

/// A policy written as Swift closures: for tests, and for hosts that want a fixed policy
/// without a script.
public struct ClosurePolicy: Policy {
    /// The name reports show.
    public let name: String
    /// What the policy keeps across a reinstall.
    public let durableKeys: DurableKeys
    /// The experiments it declares.
    public let experiments: [Experiment]
    // The closures are kept as functions returning a `Result`, not as typed-throws functions: a
    // typed-throws function type held as a value (optional, compared with nil, in a generic) needs
    // its type metadata at run time, which only the Swift 6.0 runtime has (iOS 18, macOS 15).
    private let decideBody: @Sendable (PolicyContext) -> Result<Decision?, PolicyError>
    private let reminderBody: @Sendable (PolicyContext) -> Result<[ReminderRequest], PolicyError>

    /// Whether a reminder closure was given.
    public let plansReminders: Bool

    /// A policy from a decide closure; it plans no reminders.
    public init(
        name: String = "closure",
        durableKeys: DurableKeys = .none,
        experiments: [Experiment] = [],
        decide: @escaping @Sendable (PolicyContext) throws(PolicyError) -> Decision?
    ) {
        self.init(
            name: name, durableKeys: durableKeys, experiments: experiments,
            decideBody: { context in Result { () throws(PolicyError) -> Decision? in try decide(context) } },
            reminderBody: nil)
    }

    /// A policy from a decide closure and a reminder closure.
    public init(
        name: String = "closure",
        durableKeys: DurableKeys = .none,
        experiments: [Experiment] = [],
        decide: @escaping @Sendable (PolicyContext) throws(PolicyError) -> Decision?,
        planReminders: @escaping @Sendable (PolicyContext) throws(PolicyError) -> [ReminderRequest]
    ) {
        self.init(
            name: name, durableKeys: durableKeys, experiments: experiments,
            decideBody: { context in Result { () throws(PolicyError) -> Decision? in try decide(context) } },
            reminderBody: { context in Result { () throws(PolicyError) -> [ReminderRequest] in try planReminders(context) } })
    }

    private init(
        name: String, durableKeys: DurableKeys, experiments: [Experiment],
        decideBody: @escaping @Sendable (PolicyContext) -> Result<Decision?, PolicyError>,
        reminderBody: (@Sendable (PolicyContext) -> Result<[ReminderRequest], PolicyError>)?
    ) {
        self.name = name
        self.durableKeys = durableKeys
        self.experiments = experiments
        self.decideBody = decideBody
        self.reminderBody = reminderBody ?? { _ in .success([]) }
        self.plansReminders = reminderBody != nil
    }

    /// Calls the decide closure.
    public func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? {
        try decideBody(context).get()
    }

    /// Calls the reminder closure, if any.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        try reminderBody(context).get()
    }
}
