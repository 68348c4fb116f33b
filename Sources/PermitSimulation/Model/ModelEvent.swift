import PermitCore
import PermitInput

/// An app event of the app's own that the model's users send in their sessions (`events:` in
/// the model file), through the engine's real `.custom` path. It goes only to policies that
/// declare it: a policy that does not would have no branch for it (docs/simulate.md).
public struct ModelEvent: Sendable, Hashable {
    /// When a user sends the event: exactly one form per event.
    public enum Timing: Sendable, Hashable, CustomStringConvertible {
        /// `per_session`: this many times in every session (a count distribution).
        case perSession(CountDistribution)
        /// `once_after_session: N`: once, in the N-th session of an install (a reinstall is a
        /// new install: the app's data is gone, so the user does it again, e.g. signs in).
        case onceAfterSession(Int)
        /// `once_per_day`: in the day's first session, with this chance.
        case oncePerDay(Double)
        /// `follows: NAME, chance: P`: right after each `NAME` (another of the model's events,
        /// or the opening of a feature), with chance `P`, instead of on its own.
        case follows(String, chance: Double)

        /// The form as the model file writes it, for reports.
        public var description: String {
            switch self {
            case .perSession(let count): "per_session \(count)"
            case .onceAfterSession(let session): "once_after_session \(session)"
            case .oncePerDay(let chance): "once_per_day \(chance)"
            case .follows(let leader, let chance): "follows \(leader) with chance \(chance)"
            }
        }
    }

    /// The event's name (`lesson_completed`).
    public let name: String
    /// When it is sent.
    public let timing: Timing
    /// The event as the engine receives it, with its fixed properties, made once.
    public let event: AppEvent
    /// Properties drawn afresh for every send (`properties: { plan: { weighted: ... } }`), in
    /// the order of their names; empty when every property is fixed.
    public let drawnProperties: [DrawnProperty]
    /// Where the model names it (`models/x.yaml:12`), for the warning when a policy does not declare it.
    public let place: String

    /// How many times a session sends it, for a `per_session` event (0 for the other forms).
    public var perSession: CountDistribution {
        if case .perSession(let count) = timing { return count }
        return .fixed(0)
    }

    /// The event it follows, for a `follows` event.
    public var leader: String? {
        if case .follows(let leader, _) = timing { return leader }
        return nil
    }

    /// A `per_session` event with fixed properties.
    public init(name: String, perSession: CountDistribution, event: AppEvent, place: String) {
        self.init(name: name, timing: .perSession(perSession), event: event, drawnProperties: [], place: place)
    }

    /// An event sent at `timing`, with `drawnProperties` drawn for every send over `event`'s fixed ones.
    public init(name: String, timing: Timing, event: AppEvent, drawnProperties: [DrawnProperty], place: String) {
        self.name = name
        self.timing = timing
        self.event = event
        self.drawnProperties = drawnProperties
        self.place = place
    }

    /// The event as one send carries it: the fixed properties and a fresh draw of each drawn one.
    func draw(_ rng: inout SplitMix64) -> AppEvent {
        guard !drawnProperties.isEmpty, case .custom(let fixed) = event else { return event }
        var properties = fixed.properties
        for property in drawnProperties { properties[property.name] = property.distribution.sample(&rng) }
        // Every value a distribution can give was checked when the model was read.
        return (try? AppEvent.custom(name, properties: properties)) ?? event
    }

    static let timingKeys = ["per_session", "once_after_session", "once_per_day", "follows"]
    static let example =
        "{ per_session: { poisson: 0.6 } }, { once_after_session: 2 }, { once_per_day: 0.7 } or { follows: checkout_started, chance: 0.4 }"

    /// `events: { lesson_completed: { per_session: { poisson: 0.9 }, properties: { course: verbs } } }`:
    /// a name the engine accepts (checked as `AppEvent.custom` checks it), exactly one timing
    /// (`per_session`, `once_after_session`, `once_per_day`, `follows` with its `chance`), and
    /// optional properties (strings, numbers, booleans, or a distribution drawn per send).
    /// `features` are the model's features, which an event may follow.
    static func parseAll(_ node: YAMLValue, features: [String] = []) throws(InputError) -> [ModelEvent] {
        var events: [ModelEvent] = []
        var leaderNodes: [String: YAMLValue] = [:]
        for (name, value, fields) in try entries(node) {
            let timing = try parseTiming(fields, at: value)
            if case .follows = timing { leaderNodes[name] = fields["follows"]! }
            var properties: [String: PolicyValue] = [:]
            var drawn: [DrawnProperty] = []
            for (key, property) in try fields["properties"]?.table() ?? [] {
                if case .mapping = property.node {
                } else {
                    properties[key] = try property.propertyValue()
                    continue
                }
                let distribution = try PropertyDistribution.parse(property)
                // Checks every value it can give now, so a send never fails (a bad event name
                // is reported below, with the event's own hint).
                if CustomEvent.problem(withName: name) == nil {
                    for sample in distribution.possibleValues {
                        do { _ = try CustomEvent(name, properties: [key: sample]) } catch {
                            throw property.error(error.description)
                        }
                    }
                }
                drawn.append(DrawnProperty(name: key, distribution: distribution))
            }
            let event: AppEvent
            do {
                // The drawn properties count towards the limit on properties: one of each stands in.
                var all = properties
                for property in drawn { all[property.name] = property.distribution.possibleValues.first }
                _ = try CustomEvent(name, properties: all)
                event = try AppEvent.custom(name, properties: properties)
            } catch {
                throw (fields["name"] ?? node.child(name, value.node)).error(
                    error.description, hint: "name the app's event as the app sends it, e.g. lesson_completed")
            }
            let line = "\(value.location.file):\(value.location.line)"
            events.append(
                ModelEvent(
                    name: name, timing: timing, event: event, drawnProperties: drawn.sorted { $0.name < $1.name },
                    place: line))
        }
        try checkLeaders(events, leaderNodes: leaderNodes, features: features)
        return events
    }

    /// The events as a table by name (`lesson_completed: { per_session: 1 }`) or as a list of
    /// tables with a `name` (`- { name: lesson_completed, per_session: 1 }`), each name once.
    private static func entries(_ node: YAMLValue) throws(InputError) -> [(String, YAMLValue, [String: YAMLValue])] {
        let keys = timingKeys + ["chance", "properties"]
        guard case .sequence = node.node else {
            var entries: [(String, YAMLValue, [String: YAMLValue])] = []
            for (name, value) in try node.table() { entries.append((name, value, try value.fields(allowed: keys))) }
            return entries
        }
        var entries: [(String, YAMLValue, [String: YAMLValue])] = []
        for item in try node.list() {
            let fields = try item.fields(allowed: ["name"] + keys)
            guard let nameNode = fields["name"] else {
                throw item.error("missing \"name\"", hint: "write e.g. - { name: signed_in, once_after_session: 2 }")
            }
            let name = try nameNode.string()
            if entries.contains(where: { $0.0 == name }) {
                throw nameNode.error("\"\(name)\" is listed twice", hint: "give each event one entry")
            }
            entries.append((name, item, fields))
        }
        return entries
    }

    /// Exactly one of the timing keys; `chance` only beside `follows`.
    private static func parseTiming(_ fields: [String: YAMLValue], at node: YAMLValue) throws(InputError) -> Timing {
        let given = timingKeys.filter { fields[$0] != nil }
        guard let form = given.first else {
            throw node.error(
                "missing when the event is sent: one of \(timingKeys.joined(separator: ", "))", hint: "write e.g. \(example)")
        }
        guard given.count == 1 else {
            throw fields[given[1]]!.error(
                "\"\(given[0])\" and \"\(given[1])\" both given; an event has exactly one of \(timingKeys.joined(separator: ", "))",
                hint: "keep one; for an event sent both ways, give it two names")
        }
        if form != "follows", let chance = fields["chance"] {
            throw chance.error("\"chance\" goes with \"follows\"", hint: "for a daily chance write { once_per_day: 0.7 }")
        }
        let value = fields[form]!
        switch form {
        case "per_session":
            return .perSession(try CountDistribution.parse(value))
        case "once_after_session":
            return .onceAfterSession(try value.int(in: 1...10_000))
        case "once_per_day":
            return .oncePerDay(try value.probability())
        default:
            return .follows(try value.string(), chance: try fields["chance"]?.probability() ?? 1)
        }
    }

    /// A `follows` names another event of the model or a feature, and no chain of them comes back to itself.
    private static func checkLeaders(_ events: [ModelEvent], leaderNodes: [String: YAMLValue], features: [String]) throws(InputError) {
        let names = events.map(\.name)
        for event in events {
            guard let leader = event.leader, let node = leaderNodes[event.name] else { continue }
            guard names.contains(leader) || features.contains(leader) else {
                throw node.error(
                    "\"\(leader)\" is neither one of the model's events nor one of its features",
                    hint: Suggestion.hint(for: leader, in: names.filter { $0 != event.name } + features))
            }
            var seen = [event.name]
            var next: String? = leader
            while let current = next, let followed = events.first(where: { $0.name == current }) {
                guard !seen.contains(current) else {
                    throw node.error(
                        "the events follow each other in a circle (\((seen + [current]).joined(separator: " → ")))",
                        hint: "make one of them per_session, once_per_day or once_after_session")
                }
                seen.append(current)
                next = followed.leader
            }
        }
    }
}

/// A property of a model event drawn for every send, from a distribution.
public struct DrawnProperty: Sendable, Hashable {
    /// The property's name (`plan`).
    public let name: String
    /// What it is drawn from.
    public let distribution: PropertyDistribution
}

/// `{ weighted: { free: 0.8, pro: 0.2 } }` (a value per share: strings, numbers, booleans as
/// a plain property is read) or a count distribution (`{ poisson: 2 }`, `{ uniform: [1, 3] }`,
/// `{ choice: { ... } }`: a whole number).
public enum PropertyDistribution: Sendable, Hashable {
    /// One of the values, each as often as its share.
    case weighted(Weighted<PolicyValue>)
    /// A whole number.
    case count(CountDistribution)

    func sample(_ rng: inout SplitMix64) -> PolicyValue {
        switch self {
        case .weighted(let values): values.pick(&rng)
        case .count(let count): .integer(Int64(count.sample(&rng)))
        }
    }

    /// Every value a draw can give (for a count, the range's ends stand in: the rest are whole numbers between).
    var possibleValues: [PolicyValue] {
        switch self {
        case .weighted(let values): values.items.map(\.value)
        case .count: [.integer(0), .integer(Int64(CountDistribution.maximum))]
        }
    }

    static func parse(_ node: YAMLValue) throws(InputError) -> PropertyDistribution {
        let entries = try node.table(allowed: ["weighted"] + CountDistribution.forms)
        if entries.count == 1, let (form, value) = entries.first, form == "weighted" {
            var pairs: [(PolicyValue, Double, YAMLValue)] = []
            for (key, share) in try value.table() {
                pairs.append((YAMLValue.plainValue(key), try share.probability(), share))
            }
            return .weighted(try Weighted(pairs, at: value))
        }
        return .count(try CountDistribution.parse(node))
    }
}

extension YAMLValue {
    /// An event property: a plain number (integer or not), `true`/`false`, or a string.
    func propertyValue() throws(InputError) -> PolicyValue {
        guard case .scalar(let scalar) = node else {
            throw error(
                "expected a string, number or boolean, or a distribution, got \(kindName)",
                hint: "write e.g. verbs, 5, { weighted: { free: 0.8, pro: 0.2 } } or { poisson: 2 }")
        }
        if scalar.style == .plain { return Self.plainValue(scalar.string) }
        return .string(scalar.string)
    }

    /// A plain scalar's value: an integer, a number, a boolean, else the string.
    static func plainValue(_ text: String) -> PolicyValue {
        if let integer = Int64(text) { return .integer(integer) }
        if let number = Double(text), number.isFinite { return .number(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }
}
