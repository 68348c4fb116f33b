import PermitCore
import PermitInput

/// Checks on scenario values that parse but cannot be meant: a date that does not exist, a
/// counter below zero, state a policy could never have remembered, a scenario clock that runs
/// past what the engine's times can hold.
enum ScenarioInputChecks {
    /// The longest time a scenario may span from its start: far more than any test needs, and
    /// far inside what the clock's seconds (Int64, and Double without losing whole seconds)
    /// can hold, so no sum of `after:` durations can overflow it.
    static let maxSpanSeconds: Int64 = 100 * 36_525 * 864  // 100 years of 365.25 days
    static let maxSpanText = "100 years"
    /// The most steps one scenario plays, its `include:`s expanded. An include brings a whole
    /// file each time, so a few kilobytes could otherwise stand for hundreds of thousands of
    /// steps; no story a test tells needs more.
    static let maxSteps = 10_000
    /// The most steps a file's cases play together (a `matrix` plays the steps once per case).
    static let maxFileSteps = 100_000

    // MARK: Dates

    /// Why a `YYYY-MM-DD...` text names no real day or time, or `nil` (`CalendarText`).
    static func impossibleDate(_ text: String) -> String? { CalendarText.impossibleDate(text) }

    // MARK: The app's process

    /// Refuses a step that needs the app's process after `terminate` or `reinstall` ended it
    /// and before an `app_launch` starts the next one. The scenario begins with the process
    /// running. What needs it: an app event, an `answer` (the screen went with the process),
    /// another SDK's request and a policy bundle's download (both run in the app), and a tap
    /// on the app's link in Settings (iOS launches the app for it: write that launch). What
    /// the world does needs no process: Settings, time passing, a time zone change (the app
    /// learns the zone at its next launch, so it decides nothing then), a reinstall, an update
    /// (which ends the process itself).
    static func checkProcess(of steps: [Scenario.Step]) throws(InputError) {
        var endedBy: Scenario.Step?
        for step in steps {
            guard let ended = endedBy else {
                switch step.action {
                case .terminate, .reinstall, .appUpdate: endedBy = step
                default: break
                }
                continue
            }
            let why = "the app's process ended at step \(ended.number) (\(ended.action.summary))"
            switch step.action {
            case .event(.appLaunch):
                endedBy = nil
            case .reinstall:
                endedBy = step
            case .settings, .wait, .provisionalKeep, .appUpdate:
                break
            case .timeZone where step.expectations.decidesNothing:
                break
            case .timeZone:
                throw InputError(
                    "step \(step.number): \(why), so no app hears the time zone change and there is no decision to check",
                    at: step.location, field: "timezone", hint: "add an app_launch step, or move the expectations to it")
            case .terminate:
                throw InputError(
                    "step \(step.number): terminate: \(why) and no app_launch started another",
                    at: step.location, field: "terminate", hint: "remove the step, or add an app_launch step before it")
            case .event, .answer, .externalRequest, .policyUpdate, .openSettingsLink:
                let field = step.action.key
                throw InputError(
                    "step \(step.number): \(step.action.summary) needs the app running, but \(why)",
                    at: step.location, field: field, hint: "add an app_launch step")
            }
        }
    }

    // MARK: The initial ledger

    /// The fields of `initial.ledger` that count things: never below zero.
    private static let counters: Set<String> = [
        "launches", "foregrounds", "prompts_today", "shown", "accepted", "declined", "dismissed", "requested", "opened",
        "cancelled", "count", "inline_shown", "inline_acted",
    ]

    /// Refuses what the ledger's types accept but a real ledger never holds: negative counters,
    /// an impossible `prompts_day`, and state a policy could not have remembered (tables,
    /// lists, or numbers JSON cannot hold).
    static func checkLedger(_ value: YAMLValue) throws(InputError) {
        for (key, item) in try value.table() {
            switch key {
            case "state":
                for (name, entry) in try item.table() { try checkRemembered(entry, name: name) }
            case "features", "events":
                for (_, feature) in try item.table() {
                    for (field, number) in try feature.table() { try checkCounter(number, field: field) }
                }
            case "prompts_day":
                let text = try item.string()
                if let problem = impossibleDate(text) {
                    throw item.error("\"\(text)\" is not a day: \(problem)", hint: "write the day as YYYY-MM-DD")
                }
            default:
                if case .mapping = item.node {
                    for (field, number) in try item.table() { try checkCounter(number, field: field) }
                } else {
                    try checkCounter(item, field: key)
                }
            }
        }
    }

    private static func checkCounter(_ value: YAMLValue, field: String) throws(InputError) {
        guard counters.contains(field), case .integer(let count) = try? value.policyValue(), count < 0 else { return }
        throw value.error("\(count) is negative; \(field) counts from 0", hint: "give a whole number of 0 or more")
    }

    private static func checkRemembered(_ value: YAMLValue, name: String) throws(InputError) {
        let remembered = try value.policyValue()
        switch remembered {
        case .list, .table:
            let kind = if case .list = remembered { "a list" } else { "a table" }
            throw value.error(
                "state holds only what `remember` can store (text, numbers, true/false), got \(kind)",
                hint: "flatten it into keys like \(name)_count")
        case .number(let number) where !number.isFinite:
            throw value.error("\(number) cannot be stored: the ledger is saved as JSON, which holds only finite numbers")
        default:
            return
        }
    }
}
