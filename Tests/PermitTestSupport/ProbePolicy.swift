import PermitCore

/// A policy whose every fact and answer is its own (none is what a policy that never mentions
/// it would say), and which records what reaches it: a wrapper's tests hand it in and check
/// that each fact and call comes out, and comes back in, unchanged.
public final class ProbePolicy: Policy {
    /// What `answer` decides.
    public static let decision = Decision(.requestPermission(options: [.alert]), reason: "probe")
    /// What `planReminders` plans.
    public static let reminders = [ReminderRequest(hour: 9, body: "probe")]
    /// What `takeTrace` and `answer` say was printed.
    public static let trace = "probe trace"
    /// A context for the calls.
    public static let context = PolicyContext(
        event: .appForeground, status: .notDetermined, previousStatus: .notDetermined,
        settings: .typical(for: .notDetermined, on: OSVersion(major: 17)), platform: Platform(version: OSVersion(major: 17)),
        history: Ledger(), now: 1_767_600_000)

    /// The messages of the errors `eventHandled` was given, in order.
    public let handled = Locked<[String]>([])

    /// Every fact set to something no default gives.
    public let declaration = PolicyDeclaration(
        name: "probe", version: 7, plansReminders: true, durableKeys: DurableKeys(histories: [.settingsPrompt], state: ["streak"]),
        experiments: [Experiment(name: "first_ask", arms: [.init(name: "quiet", weight: 1), .init(name: "soft", weight: 1)])],
        declaredEvents: ["lesson_completed"])

    /// A probe.
    public init() {}

    /// `decision`, with `trace`.
    public func answer(_ context: PolicyContext) -> PolicyAnswer { PolicyAnswer(decision: .success(Self.decision), trace: Self.trace) }
    /// `reminders`.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] { Self.reminders }
    /// Refuses any param.
    public func validate(params: [String: PolicyValue]) throws(PolicyError) {
        if !params.isEmpty { throw PolicyError(kind: .load, message: "unknown param") }
    }
    /// `trace`.
    public func takeTrace() -> String { Self.trace }
    /// Records the messages.
    public func eventHandled(errors: [PolicyError]) { handled.withLock { $0 += errors.map(\.message) } }

    /// What `wrapper`, holding this probe, fails to pass on: each fact of its declaration (the
    /// version compared with `version`, for a wrapper that answers its own) and each call, in
    /// and out. Empty when it forwards everything.
    public func differences(through wrapper: any Policy, version: Int64?? = .none) -> [String] {
        var expected = declaration
        if let version { expected.version = version }
        var found: [String] = []
        let facts = wrapper.declaration
        if facts.name != expected.name { found.append("name \(facts.name)") }
        if facts.version != expected.version { found.append("version \(String(describing: facts.version))") }
        if facts.plansReminders != expected.plansReminders { found.append("plansReminders \(facts.plansReminders)") }
        if facts.durableKeys != expected.durableKeys { found.append("durableKeys \(facts.durableKeys)") }
        if facts.experiments != expected.experiments { found.append("experiments \(facts.experiments)") }
        if facts.declaredEvents != expected.declaredEvents { found.append("declaredEvents \(facts.declaredEvents)") }
        let answer = wrapper.answer(Self.context)
        if (try? answer.decision.get()) != Self.decision { found.append("answer's decision \(answer.decision)") }
        if answer.trace != Self.trace { found.append("answer's trace \(answer.trace)") }
        if (try? wrapper.planReminders(Self.context)) != Self.reminders { found.append("planReminders") }
        if (try? wrapper.validate(params: ["typo": .bool(true)])) != nil { found.append("validate accepted an unknown param") }
        if wrapper.takeTrace() != Self.trace { found.append("takeTrace") }
        let before = handled.current.count
        wrapper.eventHandled(errors: [PolicyError(kind: .runtime, message: "seen")])
        if handled.current.dropFirst(before) != ["seen"] { found.append("eventHandled") }
        return found
    }
}
