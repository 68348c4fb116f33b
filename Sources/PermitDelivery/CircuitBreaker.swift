/// When an installed policy is judged broken: it errors on more than `maximumErrorShare` of its
/// last `window` decisions, once it has made at least `minimumDecisions` of them.
///
/// A decision counts as an error when the policy's `decide` or `plan_reminders` for that event
/// threw (raised, ran out of budget or memory, returned a malformed decision or reminder), or
/// when the engine found an error in what it returned (a text with no translation for the
/// locale or `en`, remembered state over 4 KiB, reminders the planner refused).
public struct CircuitBreakerConfiguration: Sendable, Hashable {
    /// How many of the latest decisions the breaker looks at.
    public var window: Int
    /// How many decisions it waits for before judging: one early error must not roll back.
    public var minimumDecisions: Int
    /// 0–1: the breaker trips when errors / decisions in the window is greater than this.
    public var maximumErrorShare: Double

    /// A breaker; out-of-range values are clamped (a window of at least 1, a share within 0–1).
    public init(window: Int = 20, minimumDecisions: Int = 10, maximumErrorShare: Double = 0.5) {
        self.window = max(1, window)
        self.minimumDecisions = min(max(1, minimumDecisions), max(1, window))
        self.maximumErrorShare = min(max(0, maximumErrorShare), 1)
    }

    /// Never trips.
    public static let disabled = CircuitBreakerConfiguration(window: 1, minimumDecisions: 1, maximumErrorShare: 1)
}

/// The recent decisions of the policy being served: `true` for one that errored.
struct BreakerWindow: Sendable {
    private(set) var results: [Bool] = []

    init() {}

    /// A window saved by an earlier launch: its last `window` results.
    init(results: [Bool], window: Int) {
        self.results = Array(results.suffix(max(1, window)))
    }

    var count: Int { results.count }
    var errors: Int { results.lazy.filter { $0 }.count }

    mutating func record(errored: Bool, window: Int) {
        results.append(errored)
        if results.count > window { results.removeFirst(results.count - window) }
    }

    /// The event whose decision was just recorded failed later (in `plan_reminders`).
    mutating func markLastErrored() {
        if !results.isEmpty { results[results.count - 1] = true }
    }

    func isTripped(_ configuration: CircuitBreakerConfiguration) -> Bool {
        guard results.count >= configuration.minimumDecisions else { return false }
        return Double(errors) / Double(results.count) > configuration.maximumErrorShare
    }

    mutating func reset() { results.removeAll() }
}
