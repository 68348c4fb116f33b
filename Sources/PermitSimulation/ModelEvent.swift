import PermitCore
import PermitInput

/// An app event of the app's own that the model's users send in their sessions (`events:` in
/// the model file), through the engine's real `.custom` path. It goes only to policies that
/// declare it: a policy that does not would have no branch for it (docs/simulate.md).
public struct ModelEvent: Sendable, Hashable {
    /// The event's name (`lesson_completed`).
    public let name: String
    /// How many times a session sends it.
    public let perSession: CountDistribution
    /// The event as the engine receives it, properties included, made once.
    public let event: AppEvent
    /// Where the model names it (`models/x.yaml:12`), for the warning when a policy does not declare it.
    public let place: String

    /// `events: { lesson_completed: { per_session: { poisson: 0.9 }, properties: { course: verbs } } }`:
    /// a name the engine accepts (checked as `AppEvent.custom` checks it), a required count
    /// distribution per session, optional properties (strings, numbers, booleans).
    static func parseAll(_ node: YAMLValue) throws(InputError) -> [ModelEvent] {
        var events: [ModelEvent] = []
        for (name, value) in try node.table() {
            let fields = try value.fields(allowed: ["per_session", "properties"])
            guard let perSession = fields["per_session"] else {
                throw value.error("missing \"per_session\"", hint: "write e.g. { per_session: { poisson: 0.6 } }")
            }
            var properties: [String: PolicyValue] = [:]
            for (key, property) in try fields["properties"]?.table() ?? [] {
                properties[key] = try property.propertyValue()
            }
            let event: AppEvent
            do {
                event = try AppEvent.custom(name, properties: properties)
            } catch {
                throw node.child(name, value.node).error(
                    error.description, hint: "name the app's event as the app sends it, e.g. lesson_completed")
            }
            let line = "\(value.location.file):\(value.location.line)"
            events.append(ModelEvent(name: name, perSession: try CountDistribution.parse(perSession), event: event, place: line))
        }
        return events
    }
}

extension YAMLValue {
    /// An event property: a plain number (integer or not), `true`/`false`, or a string.
    func propertyValue() throws(InputError) -> PolicyValue {
        guard case .scalar(let scalar) = node else {
            throw error("expected a string, number or boolean, got \(kindName)")
        }
        if scalar.style == .plain {
            if let integer = Int64(scalar.string) { return .integer(integer) }
            if let number = Double(scalar.string), number.isFinite { return .number(number) }
            if scalar.string == "true" || scalar.string == "false" { return .bool(scalar.string == "true") }
        }
        return .string(scalar.string)
    }
}
