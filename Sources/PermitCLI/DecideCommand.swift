import ArgumentParser
import Foundation
import PermitCore
import PermitInput
import PermitLua
import PermitScenario

struct DecideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Ask a policy for one decision, for quick experiments.",
        discussion: """
            Runs one event through the real engine on a simulated device in the given status, so the \
            guardrails and localisation apply as in an app.

            Examples:
              permit decide policies/polite --status not_determined --event feature_opened --feature diary
              permit decide policies/polite --status denied --event app_foreground --os 15.3 --format json
              permit decide policies/polite --status not_determined --event soft_prompt_answered --answer accept
              permit decide policies/polite --status not_determined --event feature_opened --feature diary \\
                --now 2026-09-06T21:30:00Z --timezone Europe/Berlin --bucket 42 --param 'quiet=[22,8]'
              permit decide policies/lessons --status not_determined --event lesson_completed --property count=2

            Exits 1 when the policy raised an error (the decision is then none; the error is printed), \
            2 for bad input.
            """)

    @Argument(help: "The policy file, or a pack directory holding policy.lua.")
    var policy: String

    @Option(help: "The device's status: not_determined, denied, authorized, provisional or ephemeral.")
    var status: String

    @Option(help: "The event: \(AppEvent.names.joined(separator: ", ")), or one of the app's own the policy declares (events = { ... }).")
    var event: String

    @Option(
        name: .customLong("property"),
        help: "A property of an app event of its own: --property count=2 (repeatable); numbers, true/false, otherwise text.")
    var properties: [String] = []

    @Option(help: "The feature, for feature_opened and feature_closed.")
    var feature: String?

    @Option(help: "The answer, for soft_prompt_answered (accept, decline, dismiss) or settings_prompt_answered (open, cancel, dismiss).")
    var answer: String?

    @Option(help: "Whether the dialog was allowed, for system_prompt_answered.")
    var granted: Bool?

    @Option(help: "The iOS version.")
    var os = "17.0"

    @Option(help: "The locale (BCP 47).")
    var locale = "en"

    @Flag(help: "The app is an App Clip.")
    var appClip = false

    @Option(help: "A ledger JSON file (as the file store writes it, or a bare ledger object).")
    var history: String?

    @Option(
        name: .customLong("param"),
        help: "Override a policy param: --param renag_after_days=5 (repeatable); a list or table in JSON: --param 'hours=[22,8]'.")
    var params: [String] = []

    @Option(help: "The clock, ISO 8601: 2026-09-06T21:30:00Z or 2026-09-06T23:30:00+02:00 (default: now).")
    var now: String?

    @Option(help: "The device's time zone, an IANA id such as Europe/Berlin (default: this machine's).")
    var timezone: String?

    @Option(help: "ctx.user.bucket, 0-99.")
    var bucket = 0

    @Option(
        name: .customLong("arm"),
        help:
            "Pin an experiment's arm: --arm first_ask=quiet (repeatable); unpinned experiments are assigned as for install id \"decide\" (or the --history ledger's install_id)."
    )
    var arms: [String] = []

    @OptionGroup var limitOptions: LimitOptions

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() async throws {
        let url = try policyURL(policy)
        let version: OSVersion
        do { version = try OSVersion(parsing: os) } catch {
            Terminal.printError("--os: \(error)")
            throw Exit.badInput
        }
        guard let status = PermissionStatus(rawValue: status), status != .unknown else {
            Terminal.printError(
                "--status: \"\(self.status)\" is not a status; "
                    + Suggestion.hint(for: self.status, in: PermissionStatus.allCases.dropFirst().map(\.rawValue)))
            throw Exit.badInput
        }
        guard (0...99).contains(bucket) else {
            Terminal.printError("--bucket: \(bucket) is not a bucket; write a whole number from 0 to 99")
            throw Exit.badInput
        }
        var decision = SingleDecision(
            platform: Platform(version: version, isAppClip: appClip), status: status, locale: locale,
            ledger: try loadHistory(), params: try overrides(), timeZone: try parseTimeZone(), userBucket: bucket)
        decision.arms = try pinnedArms()
        let clock = try parseNow()
        let policy = try loadPolicy(url, limits: limitOptions.limits)
        let event = try parseEvent(declared: policy.declaredEvents)
        let outcome: Outcome
        do throws(SingleDecision.Problem) {
            outcome = try await decision.outcome(of: event, policy: policy, now: clock)
        } catch {
            switch error {
            case .params(let error): Terminal.printError("--param: \(error)")
            case .status(let error): Terminal.printError("--status: \(error)")
            case .arm(let problem): Terminal.printError("--arm \(problem)")
            }
            throw Exit.badInput
        }
        show(outcome)
        // A policy error is a failed decision, not a quiet `none`: scripts and CI must see it.
        let errors = outcome.errors + outcome.followUps.flatMap(\.errors)
        if !errors.isEmpty {
            for error in errors { Terminal.printError("the policy raised an error: \(error)") }
            throw Exit.failure
        }
    }

    /// Prints the outcome as text (the timeline line, whose `trace:` lines are the policy's
    /// output, then the arms) or JSON.
    func show(_ outcome: Outcome) {
        let trace = outcome.trace
        if format == .json {
            var fields: [String: PolicyValue] = [
                "decision": .table(DecisionFields.of(outcome.decision)),
                "status": .string(outcome.statusAfter.rawValue),
                "warnings": .list(outcome.warnings.map { .table(["name": .string($0.name), "message": .string($0.message)]) }),
                "errors": .list(outcome.errors.map { .string($0.description) }),
                "dialog_shown": .bool(outcome.dialogShown),
                "register_for_remote_notifications": .bool(outcome.registerForRemoteNotifications),
                "arms": .table(outcome.arms.mapValues(PolicyValue.string)),
            ]
            if let proposed = outcome.proposed { fields["proposed"] = .table(DecisionFields.of(proposed)) }
            if !trace.isEmpty { fields["trace"] = .string(trace) }
            Terminal.say(PolicyValue.table(fields).prettyJSON)
        } else {
            let formatter = TimelineFormatter(start: outcome.time)
            Terminal.say(formatter.line(for: outcome))
            if !outcome.arms.isEmpty {
                Terminal.say("arms: " + outcome.arms.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            }
        }
    }

    /// `--now`, or this instant.
    func parseNow() throws -> Date {
        guard let now else { return Date() }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: now) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: now) { return date }
        Terminal.printError("--now: \"\(now)\" is not an ISO 8601 time; write it like 2026-09-06T21:30:00Z or 2026-09-06T23:30:00+02:00")
        throw Exit.badInput
    }

    /// `--timezone`, or this machine's zone.
    func parseTimeZone() throws -> TimeZone {
        guard let timezone else { return .current }
        if let zone = TimeZone(identifier: timezone) { return zone }
        Terminal.printError(
            "--timezone: \"\(timezone)\" is not an IANA time zone; "
                + Suggestion.hint(for: timezone, in: TimeZone.knownTimeZoneIdentifiers))
        throw Exit.badInput
    }

    /// `--arm experiment=arm`, repeated.
    func pinnedArms() throws -> [String: String] {
        var pins: [String: String] = [:]
        for pin in arms {
            let parts = pin.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                Terminal.printError("--arm \(pin): write experiment=arm, e.g. --arm first_ask=quiet")
                throw Exit.badInput
            }
            pins[String(parts[0])] = String(parts[1])
        }
        return pins
    }

    /// `--param name=value`, repeated.
    func overrides() throws -> [String: PolicyValue] {
        var overrides: [String: PolicyValue] = [:]
        for param in params {
            guard let equals = param.firstIndex(of: "="), equals != param.startIndex else {
                Terminal.printError("--param \(param): write name=value")
                throw Exit.badInput
            }
            let name = String(param[..<equals])
            do {
                overrides[name] = try ParamParsing.value(String(param[param.index(after: equals)...]))
            } catch {
                Terminal.printError("--param \(name): \(error.message)")
                throw Exit.badInput
            }
        }
        return overrides
    }

    /// `--property name=value`, repeated: scalars only, as an app event carries them.
    func parseProperties() throws -> [String: PolicyValue]? {
        guard !properties.isEmpty else { return nil }
        var parsed: [String: PolicyValue] = [:]
        for property in properties {
            guard let equals = property.firstIndex(of: "="), equals != property.startIndex else {
                Terminal.printError("--property \(property): write name=value, e.g. --property count=2")
                throw Exit.badInput
            }
            let text = String(property[property.index(after: equals)...])
            // Text that looks like JSON stays text: a property is a scalar.
            parsed[String(property[..<equals])] =
                text.hasPrefix("[") || text.hasPrefix("{")
                ? .string(text) : ((try? ParamParsing.value(text)) ?? .string(text))
        }
        return parsed
    }

    /// `--event` with its fields; an app event of its own must be one the policy declares.
    func parseEvent(declared: [String]) throws -> AppEvent {
        let known = AppEvent.names + declared
        let parsed: AppEvent
        let properties = try parseProperties()
        // significant_time_change names the device's zone, the one --timezone sets.
        let zone = timezone.flatMap { TimeZone(identifier: $0) } ?? .current
        do throws(EventInput.Problem) {
            parsed = try EventInput.event(
                named: event, feature: feature, answer: answer, granted: granted, timeZone: zone, properties: properties)
        } catch {
            switch error {
            case .unknownName:
                Terminal.printError("--event: \"\(event)\" is not an event; " + Suggestion.hint(for: event, in: known))
            case .missing(let field):
                Terminal.printError("--event \(event) needs --\(field)")
            case .notTaken(let field):
                Terminal.printError("--\(field) does not go with --event \(event)")
            case .emptyFeature:
                Terminal.printError("--feature: the feature name is empty")
            case .invalidAnswer(let expected):
                Terminal.printError("--answer: expected \(expected.dropLast().joined(separator: ", ")) or \(expected.last!)")
            case .invalidProperties(let message):
                Terminal.printError("--property: \(message)")
            }
            throw Exit.badInput
        }
        if case .custom(let custom) = parsed, !declared.contains(custom.name) {
            let hint =
                declared.isEmpty
                ? "the policy declares no events of its own (add events = { \"\(custom.name)\" } to it), or "
                    + Suggestion.hint(for: event, in: AppEvent.names)
                : Suggestion.hint(for: event, in: known)
            Terminal.printError("--event: the policy does not declare \"\(custom.name)\"; \(hint)")
            throw Exit.badInput
        }
        return parsed
    }

    func loadHistory() throws -> Ledger {
        guard let history else { return Ledger() }
        guard let data = FileManager.default.contents(atPath: Terminal.file(history).path) else {
            Terminal.printError("--history: cannot read \(history)")
            throw Exit.badInput
        }
        do {
            return try HistoryFile.ledger(from: data, named: "--history \(history)")
        } catch {
            Terminal.printError(error.message)
            throw Exit.badInput
        }
    }
}

/// `--param name=value` values: integers, decimals, true/false, a list or table in JSON
/// (`[22, 8]`, `{"en": "Hi"}`), otherwise text.
enum ParamParsing {
    /// A `--param` value that starts like JSON but is not.
    struct BadValue: Error {
        let message: String
    }

    static func value(_ text: String) throws(BadValue) -> PolicyValue {
        if text.hasPrefix("[") || text.hasPrefix("{") {
            do {
                return try JSONDecoder().decode(PolicyValue.self, from: Data(text.utf8))
            } catch {
                throw BadValue(
                    message: "\(text) starts like a JSON list or table but is not valid JSON; "
                        + "write it like [22, 8] or {\"en\": \"Hello\"}, quoting strings")
            }
        }
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let integer = Int64(text) { return .integer(integer) }
        if let number = Double(text), text.contains(".") {
            guard number.isFinite else { throw BadValue(message: "\(text) is beyond the largest number (about 1.8e308)") }
            return .number(number)
        }
        return .string(text)
    }
}
