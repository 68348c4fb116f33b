import Foundation
import PermitCore
import PermitInput
import PermitLua
import PermitScenario

/// "Try it": one event on a simulated device, as `permit decide` runs it (SingleDecision, the
/// real engine, the guardrails and localisation) and words it (the timeline line, the arms,
/// the trace).
public struct TryDecision: Codable, Sendable {
    /// The device's status: not_determined, denied, authorized, provisional or ephemeral.
    public var status: String
    /// The iOS version, `17.0`.
    public var os: String
    /// The event's name.
    public var event: String
    /// The feature, for feature_opened.
    public var feature: String?
    /// The answer, for soft_prompt_answered and settings_prompt_answered.
    public var answer: String?
    /// Whether the dialog was allowed, for system_prompt_answered.
    public var granted: Bool?
    /// Properties of an app event of its own, `name=value` per line.
    public var properties: String?
    /// The locale (BCP 47).
    public var locale: String
    /// The history: a ledger as JSON (as `permit decide --history` reads a bare ledger); empty
    /// for a fresh install.
    public var history: String?

    /// The decision with the policy at `url` and its pack's copy, or the input's problem (in `errors`).
    func decide(policyAt url: URL, displayName: String, limits: LuaLimits) async -> PlaygroundReports.Decide {
        func refused(_ message: String) -> PlaygroundReports.Decide {
            PlaygroundReports.Decide(text: "", decision: [:], status: nil, warnings: [], errors: [message], screen: nil)
        }
        guard let version = try? OSVersion(parsing: os) else { return refused("iOS version: \"\(os)\" is not a version like 17.0") }
        guard let status = PermissionStatus(rawValue: status), status != .unknown else {
            return refused("status: \"\(self.status)\" is not a status")
        }
        var ledger = Ledger()
        if let history, !history.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            do { ledger = try JSONDecoder().decode(Ledger.self, from: Data(history.utf8)) } catch {
                return refused("history: not a ledger in JSON (\(error.localizedDescription)); leave it empty for a fresh install")
            }
        }
        let policy: LuaPolicy
        do {
            policy = try LuaPolicy.load(
                contentsOf: url, displayName: displayName, limits: limits, copy: try PackEvaluation.copy(besidePolicy: url))
        } catch {
            return refused(error.description)
        }
        let event: AppEvent
        do throws(EventInput.Problem) {
            event = try EventInput.event(
                named: self.event, feature: feature, answer: answer, granted: granted, timeZone: TimeZone(identifier: "UTC"),
                properties: parsedProperties())
        } catch {
            return refused("event \(self.event): \(Self.words(error))")
        }
        if case .custom(let custom) = event, !policy.declaredEvents.contains(custom.name) {
            return refused("event: the policy does not declare \"\(custom.name)\" (events = { ... })")
        }
        let single = SingleDecision(
            platform: Platform(version: version), status: status, locale: locale.isEmpty ? "en" : locale, ledger: ledger,
            timeZone: TimeZone(identifier: "UTC")!)
        do throws(SingleDecision.Problem) {
            let outcome = try await single.outcome(of: event, policy: policy)
            return Self.report(outcome, locale: single.locale)
        } catch {
            switch error {
            case .params(let error): return refused("params: \(error)")
            case .status(let error): return refused("status: \(error)")
            case .arm(let problem): return refused("arm: \(problem)")
            }
        }
    }

    /// An event's problem in the page's words.
    static func words(_ problem: EventInput.Problem) -> String {
        switch problem {
        case .unknownName: "not an event"
        case .missing(let field): "needs a \(field)"
        case .notTaken(let field): "takes no \(field)"
        case .emptyFeature: "the feature name is empty"
        case .invalidAnswer(let expected): "the answer must be one of \(expected.joined(separator: ", "))"
        case .invalidProperties(let message): message
        }
    }

    /// `name=value` lines; numbers and true/false as such, otherwise text; nil when there are none.
    func parsedProperties() -> [String: PolicyValue]? {
        let lines = (properties ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        var parsed: [String: PolicyValue] = [:]
        for line in lines where !line.isEmpty {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let text = parts[1]
            parsed[parts[0]] =
                text == "true" ? .bool(true) : text == "false" ? .bool(false) : Int64(text).map(PolicyValue.integer) ?? .string(text)
        }
        return parsed.isEmpty ? nil : parsed
    }

    /// `permit decide`'s text and the fields of its JSON.
    static func report(_ outcome: Outcome, locale: String) -> PlaygroundReports.Decide {
        var lines = [TimelineFormatter(start: outcome.time).line(for: outcome)]
        if !outcome.arms.isEmpty {
            lines.append("arms: " + outcome.arms.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        if !outcome.trace.isEmpty { lines.append("trace:\n" + outcome.trace) }
        let errors = outcome.errors + outcome.followUps.flatMap(\.errors)
        // A decision's `row` goes beneath the modal it shows, or is the screen when it shows none.
        var screen = TimelineStep.screen(after: outcome, locale: locale)
        var beneath: PlaygroundReports.Screen?
        if let row = outcome.finalRow {
            let picture = TimelineStep.screen(of: row, dialogShown: false, locale: locale)
            if picture.kind == "none" {
                // A row taken away: nothing to draw.
            } else if screen.kind == "none" {
                screen = picture
            } else {
                beneath = picture
            }
        }
        return PlaygroundReports.Decide(
            text: lines.joined(separator: "\n"), decision: TimelineStep.fields(outcome.decision),
            status: outcome.statusAfter.rawValue,
            warnings: (outcome.warnings + outcome.followUps.flatMap(\.warnings)).map { "\($0.name): \($0.message)" },
            errors: errors.map { "the policy raised an error: \($0)" }, screen: screen, beneath: beneath)
    }
}
