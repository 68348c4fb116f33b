import Foundation

/// A prompting policy: the engine asks it what to do and keeps the guardrails itself.
///
/// The core does not know Lua: `PermitLua.LuaPolicy` implements this for scripts, and an app or
/// a test writes one in Swift with `ClosurePolicy`. Implementations must be safe to call from
/// any thread (a Lua policy guards its VM with a lock).
///
/// Every requirement is the policy's own to answer: none has a default. A type that wraps
/// another policy (PermitDelivery's `PolicySource`, a recorder, a timer) therefore does not
/// compile until it passes each one on, instead of quietly answering a default (no experiments,
/// no durable keys) for the policy it holds. What a policy says about itself is one value,
/// `declaration`, which a wrapper forwards in one line and which carries any fact added later
/// with it; the rest are the calls. A simple policy starts from `ClosurePolicy`, which answers
/// the calls it has no use for. What only some policies can do is a protocol of its own
/// (`LineCoverageReporting`, `DecisionCoverageReporting`), which the tools ask for by casting.
public protocol Policy: Sendable {
    /// What the policy says about itself: name, version, durable keys, experiments, the events
    /// it declares, whether it plans reminders. Read for every event (and at every save), so a
    /// delivered policy may change it; keep it a stored value where it does not change.
    var declaration: PolicyDeclaration { get }
    /// The decision for one event (or `nil` for none, or why there is none) and what the policy
    /// printed while deciding, as one call: a policy behind a lock (a Lua VM) answers both under
    /// one lock, so another event's output never lands in this event's trace.
    func answer(_ context: PolicyContext) -> PolicyAnswer
    /// Reminders to schedule; called after `answer` while the status is granted, and only when
    /// the declaration says the policy plans reminders.
    func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest]
    /// Checks host or scenario overrides against the params the policy declares (unknown
    /// names, wrong types), so a typo fails loudly instead of being ignored; a policy without
    /// params accepts none, or any, as it chooses.
    func validate(params: [String: PolicyValue]) throws(PolicyError)
    /// What the policy printed since the last call (while planning reminders), for reports;
    /// empty when nothing was.
    func takeTrace() -> String
    /// Called once an event with errors is fully handled, with every policy error of it, including those
    /// the engine found after the policy returned (a text without a translation, state over
    /// 4 KiB, reminders the planner refused), so a wrapper can judge the policy's health.
    func eventHandled(errors: [PolicyError])
}

extension Policy {
    /// The policy's name, for reports (`declaration.name`).
    public var name: String { declaration.name }
    /// The policy's version for decision records (`declaration.version`).
    public var version: Int64? { declaration.version }
    /// Whether `planReminders` does anything (`declaration.plansReminders`).
    public var plansReminders: Bool { declaration.plansReminders }
    /// What of the ledger survives a reinstall (`declaration.durableKeys`).
    public var durableKeys: DurableKeys { declaration.durableKeys }
    /// The experiments the policy declares (`declaration.experiments`).
    public var experiments: [Experiment] { declaration.experiments }
    /// The app events of its own the policy declares (`declaration.declaredEvents`).
    public var declaredEvents: [String] { declaration.declaredEvents }
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
    /// `ctx.event.prompt_id`: the `id` of the prompt, row or page `event` answers (for
    /// `system_prompt_answered`, of the soft prompt whose accept led to the request); `nil` for
    /// other events and for prompts without one. The engine knows what it put on screen, so
    /// the host sends the answer alone.
    public var promptID: String?
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

/// A policy written as Swift closures: the convenient start for a policy in Swift (an app's
/// fixed policy without a script, a test's policy).
///
/// It answers every `Policy` call: `decide` and, if given, `planReminders` from the closures;
/// it prints nothing, checks no params (it declares none) and ignores the errors of handled
/// events.
///
/// ```swift
/// let policy = ClosurePolicy(name: "ask-on-second-launch") { context in
///     guard context.event == .appLaunch, context.status == .notDetermined,
///         context.history.launches >= 2
///     else { return nil }
///     return Decision(.requestPermission(options: [.alert, .sound]), reason: "second launch")
/// }
/// ```
public struct ClosurePolicy: Policy {
    /// The name, the keys kept across a reinstall and the experiments given, and whether a
    /// reminder closure was.
    public let declaration: PolicyDeclaration
    // The closures are kept as functions returning a `Result`, not as typed-throws functions: a
    // typed-throws function type held as a value (optional, compared with nil, in a generic) needs
    // its type metadata at run time, which only the Swift 6.0 runtime has (iOS 18, macOS 15).
    private let decideBody: @Sendable (PolicyContext) -> Result<Decision?, PolicyError>
    private let reminderBody: @Sendable (PolicyContext) -> Result<[ReminderRequest], PolicyError>

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
        self.declaration = PolicyDeclaration(
            name: name, plansReminders: reminderBody != nil, durableKeys: durableKeys, experiments: experiments)
        self.decideBody = decideBody
        self.reminderBody = reminderBody ?? { _ in .success([]) }
    }

    /// Calls the decide closure.
    public func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? {
        try decideBody(context).get()
    }

    /// Calls the decide closure; a closure prints nothing, so the trace is empty.
    public func answer(_ context: PolicyContext) -> PolicyAnswer {
        PolicyAnswer(decision: decideBody(context), trace: "")
    }

    /// Calls the reminder closure, if any.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        try reminderBody(context).get()
    }

    /// Accepts any params: the closures declare none to check them against.
    public func validate(params: [String: PolicyValue]) throws(PolicyError) {}

    /// Nothing: a closure prints nothing.
    public func takeTrace() -> String { "" }

    /// Ignores the errors: only a wrapper that judges health needs them.
    public func eventHandled(errors: [PolicyError]) {}
}
