/// Anything a policy did wrong, typed, with where it happened.
///
/// The engine never lets one escape: the outcome carries it, the decision becomes `none`, and
/// the next event is served normally.
public struct PolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake: reports group by it, and a circuit breaker counts it.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The script does not compile, is bytecode, or does not return a valid policy table.
        case load
        /// The script raised an error.
        case runtime
        /// The instruction budget of one call ran out (an endless loop, most likely).
        case instructionBudget = "instruction_budget"
        /// The VM's memory cap was reached.
        case memory
        /// A call or load held its thread past the time limit plus the deadline's margin: the
        /// caller stopped waiting, and the policy's VM is never used again (a delivered
        /// policy is reverted at once).
        case deadline
        /// The decision (or a reminder) is malformed: unknown action or field, wrong type, ...
        case invalidDecision = "invalid_decision"
        /// `remember` would store more than 4 KiB.
        case stateTooLarge = "state_too_large"
        /// A text field has no translation for the locale, its language or `en`.
        case missingTranslation = "missing_translation"
        /// The host sent an event the engine refused without asking the policy (a new event
        /// name past the ledger's cap); not the policy's fault, so no circuit breaker counts it.
        case invalidEvent = "invalid_event"
    }

    /// What kind of mistake.
    public var kind: Kind
    /// What went wrong and, where it helps, what to do.
    public var message: String
    /// The policy file (chunk name) and line, when the error comes from the script.
    public var file: String?
    /// The line in `file`.
    public var line: Int?
    /// The decision field at fault, e.g. `decision.options[2]`.
    public var field: String?
    /// A Lua traceback, when there is one.
    public var traceback: String?
    /// For a malformed decision whose `action` was valid, that action (`soft_prompt`): what the
    /// policy meant to do, so `permit check --review` still sees an ask on `app_launch` that
    /// failed validation.
    public var action: String?

    /// An error of `kind`; give the file, line and field whenever they are known, so the author
    /// finds it.
    public init(
        kind: Kind, field: String? = nil, message: String, file: String? = nil, line: Int? = nil,
        traceback: String? = nil
    ) {
        self.kind = kind
        // A policy chooses its error text: kept to the size of a reason (`TextCap`).
        self.message = TextCap.capped(message, bytes: TextCap.errorMessageBytes)
        self.file = file
        self.line = line
        self.field = field
        self.traceback = traceback.map { TextCap.capped($0, bytes: TextCap.tracebackBytes) }
    }

    /// `policy.lua:12: attempt to index a nil value`, or
    /// `decision.deep_link: expected app_settings or notification_settings, got "App-Prefs:..."`.
    public var description: String {
        var location = ""
        if let file {
            location = line.map { "\(file):\($0): " } ?? "\(file): "
        }
        if let field { location += "\(field): " }
        return location + message
    }
}
