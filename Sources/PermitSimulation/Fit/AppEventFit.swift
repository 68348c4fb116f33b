import PermitCore

/// The base model's app events (`events:`), each fitted from the records in the form the base
/// model gives it, with its 95% interval and what it was measured on:
///
/// - `per_session`: the mean per session (events over sessions), written as a Poisson mean with
///   the score interval;
/// - `once_per_day`: the share of an install's days with a session on which it was logged (Wilson);
/// - `once_after_session`: the install's session it was logged in most often;
/// - `follows`: the share of its leader's occurrences (an event's, or a feature's openings) it
///   followed (Wilson), when the leader is logged too.
///
/// Properties are kept as the base model gives them: a record carries the event's name, not
/// what drew its properties. An event the records never show is kept and flagged: only the
/// events a policy declares are logged, so its absence says nothing about how often users do it.
struct AppEventFit {
    /// The fitted `events:` block, `nil` when the base model has no events.
    private(set) var block: String?
    /// Each figure fitted, by its model path (`events.lesson_completed.per_session`).
    private(set) var figures: [String: FittedModel.Figure] = [:]
    /// What the records could not identify.
    private(set) var warnings: [String] = []

    /// Fits `base`'s events from `counts`, against `sessions` sessions and the features' openings.
    init(base: UserModel, counts: AppEventCounts, sessions: Int, features: [String: Int], baseName: String) {
        let unknown = counts.counts.keys.filter { name in !base.appEvents.contains { $0.name == name } }.sorted()
        if !unknown.isEmpty {
            warnings.append(
                "events: the records log "
                    + unknown.map { "\(Writer.inComment($0)) (\(Writer.count(counts.counts[$0]!)) times)" }.joined(separator: ", ")
                    + ", which \(baseName) does not have; add each to its `events` with its timing to have it fitted")
        }
        guard !base.appEvents.isEmpty else { return }
        var lines = ["events:"]
        for event in base.appEvents {
            let (timing, note) = fit(event, counts: counts, sessions: sessions, features: features, baseName: baseName)
            lines.append("  \(event.name): { \(timing)\(Self.properties(event)) }  # \(note)")
        }
        block = lines.joined(separator: "\n")
    }

    /// One event's timing as the model writes it, and the note beside it.
    private mutating func fit(
        _ event: ModelEvent, counts: AppEventCounts, sessions: Int, features: [String: Int], baseName: String
    ) -> (timing: String, note: String) {
        let logged = counts.counts[event.name] ?? 0
        let kept = Self.timing(event.timing)
        func keep(_ why: String) -> (String, String) {
            warnings.append("events.\(event.name): \(why); kept \(baseName)'s \(kept)")
            return (kept, "not identified by the records (\(why)): \(baseName)'s")
        }
        guard logged > 0 else { return keep("never logged: only the events a policy declares reach its records") }
        switch event.timing {
        case .perSession:
            guard sessions > 0 else { return keep("no session in the records") }
            let rate = Writer.poisson(events: logged, over: sessions)
            figures["events.\(event.name).per_session"] = rate
            return (
                "per_session: { poisson: \(Writer.number(rate.value)) }",
                "mean 95% \(Writer.interval(rate.interval)), n = \(Writer.count(sessions)) sessions"
            )
        case .oncePerDay:
            let days = counts.days[event.name] ?? 0, trials = max(days, counts.sessionDays)
            let share = share(days, of: trials)
            figures["events.\(event.name).once_per_day"] = share
            return (
                "once_per_day: \(Writer.ranged(share.value, share.interval))",
                "95% \(Writer.interval(share.interval)), n = \(Writer.count(trials)) days with a session"
            )
        case .onceAfterSession:
            let sessions = counts.atInstallSession[event.name] ?? [:]
            let (mode, times) = sessions.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!
            figures["events.\(event.name).once_after_session"] = FittedModel.Figure(
                value: Double(mode), interval: Interval(low: Double(mode), high: Double(mode)), n: logged)
            return (
                "once_after_session: \(mode)",
                "\(Writer.count(times)) of \(Writer.count(logged)) logged in an install's session \(mode)"
            )
        case .follows(let leader, _):
            let trials = features[leader] ?? counts.counts[leader] ?? 0
            guard trials > 0 else { return keep("\(leader) is never logged, so what it is followed by cannot be counted") }
            let share = share(min(logged, trials), of: trials)
            figures["events.\(event.name).chance"] = share
            return (
                "follows: \(Writer.quoted(leader)), chance: \(Writer.ranged(share.value, share.interval))",
                "95% \(Writer.interval(share.interval)), n = \(Writer.count(trials)) of \(leader)"
            )
        }
    }

    private func share(_ successes: Int, of trials: Int) -> FittedModel.Figure {
        FittedModel.Figure(
            value: Double(successes) / Double(trials), interval: Confidence.wilson(successes: successes, of: trials), n: trials)
    }

    /// The base model's timing, as the model file writes it.
    static func timing(_ timing: ModelEvent.Timing) -> String {
        switch timing {
        case .perSession(let count): "per_session: \(Writer.distribution(count))"
        case .onceAfterSession(let session): "once_after_session: \(session)"
        case .oncePerDay(let chance): "once_per_day: \(Writer.number(chance))"
        case .follows(let leader, let chance): "follows: \(Writer.quoted(leader)), chance: \(Writer.number(chance))"
        }
    }

    /// `, properties: { ... }` as the base model gives them (fixed and drawn), or nothing.
    static func properties(_ event: ModelEvent) -> String {
        var items: [(String, String)] = []
        if case .custom(let custom) = event.event {
            for (name, value) in custom.properties { items.append((name, Self.value(value))) }
        }
        for property in event.drawnProperties {
            switch property.distribution {
            case .weighted(let values):
                let shares = values.items.map { "\(Writer.quoted(Self.key($0.value))): \($0.share)" }.joined(separator: ", ")
                items.append((property.name, "{ weighted: { \(shares) } }"))
            case .count(let count):
                items.append((property.name, Writer.distribution(count)))
            }
        }
        guard !items.isEmpty else { return "" }
        return ", properties: { " + items.sorted { $0.0 < $1.0 }.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + " }"
    }

    /// A fixed property as a YAML scalar the model reads back as the same value: a string
    /// quoted (so `"5"` stays a string), a number, a whole number or a boolean plain.
    private static func value(_ value: PolicyValue) -> String {
        switch value {
        case .string(let text): Writer.quoted(text)
        default: key(value)
        }
    }

    /// A value as plain text (a weighted value's key is read back by its text).
    private static func key(_ value: PolicyValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let integer): "\(integer)"
        case .number(let number): "\(number)"
        case .bool(let bool): bool ? "true" : "false"
        case .list, .table: value.description
        }
    }
}
