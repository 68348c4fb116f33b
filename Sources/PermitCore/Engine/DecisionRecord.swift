import Foundation

/// One event's outcome as a stable, versioned record for the app's analytics
/// (docs/reference/policy.md#decision-records), like a policy engine's decision log.
///
/// Why a record apart from `Outcome`: `Outcome` is the engine's working value and may grow any
/// way the engine needs; this is a contract with analytics pipelines, so its JSON keys are
/// fixed for a schema version, every key is always present (`null` when it has no value), and
/// a change of meaning takes a new `schema`. `permit run --format json` prints the same
/// records, so what a scenario shows is what the app will log.
public struct DecisionRecord: Sendable, Hashable, Encodable {
    /// The schema this build writes.
    public static let schemaVersion = 1

    /// The record's keys, in the order docs/reference/policy.md lists them (a test holds the two equal,
    /// and equal to what `encode(to:)` writes).
    public static let fieldNames = [
        "schema", "policy", "time", "event", "status_before", "status_after", "decision", "proposed_action", "arms",
        "warnings", "errors", "dialog_shown", "reminders_scheduled", "reminders_removed", "follow_up",
    ]
    /// The keys of `policy`.
    public static let policyFieldNames = ["name", "version"]
    /// The keys of each entry of `errors`.
    public static let errorFieldNames = ["kind", "message", "file", "line", "field"]
    /// The keys of each entry of `warnings`.
    public static let warningFieldNames = ["guardrail", "message"]
    /// The keys of each entry of `reminders_scheduled`.
    public static let reminderFieldNames = ["id", "fire_at", "title", "body"]

    /// The policy's name.
    public var policyName: String
    /// A bundle's version; `nil` for a policy from a file or built in.
    public var policyVersion: Int64?
    /// Unix seconds.
    public var time: Int64
    /// The event as `ctx.event` shows it: `name` and its one extra field.
    public var event: [String: PolicyValue]
    /// The status before the event and after it.
    public var statusBefore: PermissionStatus
    /// The status after the event.
    public var statusAfter: PermissionStatus
    /// The decision the app carries out (after the guardrails), as `expect` tables name its fields.
    public var decision: [String: PolicyValue]
    /// The action the policy asked for before the guardrails, `nil` when it returned nothing or failed.
    public var proposedAction: String?
    /// The install's arm of each experiment.
    public var arms: [String: String]
    /// The guardrails that changed the decision.
    public var warnings: [GuardrailWarning]
    /// The policy's errors.
    public var errors: [PolicyError]
    /// Whether the system dialog appeared.
    public var dialogShown: Bool
    /// The reminders handed to the system: new ones, and changed ones replacing their old version.
    public var remindersScheduled: [ScheduledReminder]
    /// The identifiers of the policy's pending reminders removed.
    public var remindersRemoved: [String]
    /// The policy's answer to an answer iOS gave at once (`system_prompt_answered`), as a record of its own.
    public var followUp: [DecisionRecord]

    /// The record of `outcome`.
    public init(_ outcome: Outcome) {
        policyName = outcome.policyName
        policyVersion = outcome.policyVersion
        time = outcome.time
        var event: [String: PolicyValue] = ["name": .string(outcome.event.name)]
        for field in outcome.event.fields { event[field.name] = field.value }
        self.event = event
        statusBefore = outcome.statusBefore
        statusAfter = outcome.statusAfter
        decision = outcome.decision.fields
        proposedAction = outcome.proposed?.action.name
        arms = outcome.arms
        warnings = outcome.warnings
        errors = outcome.errors
        dialogShown = outcome.dialogShown
        remindersScheduled = outcome.remindersScheduled
        remindersRemoved = outcome.remindersRemoved
        followUp = outcome.followUps.map(DecisionRecord.init)
    }

    /// The record as one line of JSON (keys sorted), for JSON Lines logs.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Every key, always: `null` stands for no value, so a pipeline's schema never has to
    /// guess whether a key is missing or empty.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(Self.schemaVersion, forKey: Key("schema"))
        var policy = c.nestedContainer(keyedBy: Key.self, forKey: Key("policy"))
        try policy.encode(policyName, forKey: Key("name"))
        try policy.encode(policyVersion, forKey: Key("version"))
        try c.encode(time, forKey: Key("time"))
        try c.encode(event, forKey: Key("event"))
        try c.encode(statusBefore.rawValue, forKey: Key("status_before"))
        try c.encode(statusAfter.rawValue, forKey: Key("status_after"))
        try c.encode(decision, forKey: Key("decision"))
        try c.encode(proposedAction, forKey: Key("proposed_action"))
        try c.encode(arms, forKey: Key("arms"))
        var warningList = c.nestedUnkeyedContainer(forKey: Key("warnings"))
        for warning in warnings {
            var entry = warningList.nestedContainer(keyedBy: Key.self)
            try entry.encode(warning.name, forKey: Key("guardrail"))
            try entry.encode(warning.message, forKey: Key("message"))
        }
        var errorList = c.nestedUnkeyedContainer(forKey: Key("errors"))
        for error in errors {
            var entry = errorList.nestedContainer(keyedBy: Key.self)
            try entry.encode(error.kind.rawValue, forKey: Key("kind"))
            try entry.encode(error.message, forKey: Key("message"))
            try entry.encode(error.file, forKey: Key("file"))
            try entry.encode(error.line, forKey: Key("line"))
            try entry.encode(error.field, forKey: Key("field"))
        }
        try c.encode(dialogShown, forKey: Key("dialog_shown"))
        var reminderList = c.nestedUnkeyedContainer(forKey: Key("reminders_scheduled"))
        for reminder in remindersScheduled {
            var entry = reminderList.nestedContainer(keyedBy: Key.self)
            try entry.encode(reminder.id, forKey: Key("id"))
            try entry.encode(Int64(reminder.fireDate.timeIntervalSince1970.rounded(.down)), forKey: Key("fire_at"))
            try entry.encode(reminder.title, forKey: Key("title"))
            try entry.encode(reminder.body, forKey: Key("body"))
        }
        try c.encode(remindersRemoved, forKey: Key("reminders_removed"))
        try c.encode(followUp.first, forKey: Key("follow_up"))
    }
}

extension Outcome {
    /// This outcome's decision record.
    public var record: DecisionRecord { DecisionRecord(self) }
}
