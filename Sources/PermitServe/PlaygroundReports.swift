import Foundation

/// What the page shows, as JSON: the answers of the playground's API. Plain data, so the page's
/// script reads them and the tests decode them.
public enum PlaygroundReports {
    /// A problem of the policy or a scenario, with the line it is on when known.
    public struct Problem: Codable, Sendable, Equatable {
        /// The whole message, as `permit check` and `permit test` word it.
        public var message: String
        /// The file the line is in (`polite/policy.lua`), when known.
        public var file: String?
        /// The line, when known.
        public var line: Int?
    }

    /// Whether the edited policy loads, and each problem when it does not.
    public struct Load: Codable, Sendable {
        /// The policy's name when it loads.
        public var name: String?
        /// Every problem at once; empty when it loads.
        public var problems: [Problem]
        /// The locales the policy declares.
        public var locales: [String]
        /// The app events it declares (`events = { ... }`).
        public var events: [String]
    }

    /// One scenario of the pack and how it fared.
    public struct Scenario: Codable, Sendable {
        /// `tests/first.yaml::name`: which scenario the timeline runs.
        public var id: String
        /// The scenario file, relative to the pack's parent (`polite/tests/first.yaml`).
        public var file: String
        /// The scenario's name.
        public var name: String
        /// `pass`, `fail`, `error` (the file or the policy is wrong) or `skip`.
        public var verdict: String
        /// `permit test`'s lines for it (the failing steps, the error).
        public var lines: [String]
        /// The scenario file's own lines of the failing steps; a failing step written in an
        /// included steps file is in `failedSteps` only, so that no line of this file is marked
        /// for it.
        public var failedLines: [Int]
        /// Every failing step's place, in whichever file it is written (`reminders/tests/common/
        /// primer-allowed.steps.yaml`, line 4, for a step a scenario includes).
        public var failedSteps: [Place]
    }

    /// A line of a file of the pack.
    public struct Place: Codable, Sendable, Equatable {
        /// The file, relative to the pack's parent, as `Scenario.file` names it.
        public var file: String
        /// The line, from 1.
        public var line: Int
    }

    /// Every scenario of the pack, run against the edited text.
    public struct Tests: Codable, Sendable {
        /// The policy's load report.
        public var load: Load
        /// Each scenario, in `permit test`'s order.
        public var scenarios: [Scenario]
        /// `N passed, N failed, N skipped`, as `permit test` ends.
        public var summary: String
        /// How long the run took, in milliseconds.
        public var milliseconds: Double
    }

    /// What is on the simulated iPhone's screen after a step.
    public struct Screen: Codable, Sendable, Equatable {
        /// `none`, `soft_prompt`, `settings_prompt`, `system_dialog`, `inline_soft_prompt`,
        /// `inline_settings_prompt`.
        public var kind: String
        /// The prompt's title, when it has one.
        public var title: String?
        /// Its message.
        public var message: String?
        /// Its buttons, the one that goes on first.
        public var buttons: [String]
        /// The system dialog asks for provisional (quiet) delivery: no dialog is shown then.
        public var note: String?
        /// The web link's text (`link`), drawn as a link under the message; `nil` without one.
        public var link: String?
        /// The web page it opens (`url`), for the locale shown.
        public var url: String?
        /// Its status list (`rows`), drawn below the message: each row's name and value.
        public var rows: [Row] = []
    }

    /// One row of a prompt's or a page's status list, in the locale shown.
    public struct Row: Codable, Sendable, Equatable {
        /// The setting's name (`Time Sensitive`).
        public var name: String
        /// What it reads (`Off`).
        public var value: String
    }

    /// One step of a scenario's timeline.
    public struct Step: Codable, Sendable {
        /// The step's number, from 1.
        public var number: Int
        /// Its line in the scenario file.
        public var line: Int
        /// The clock (`+1d 09:00`).
        public var clock: String
        /// What the step did (`event: feature_opened diary`).
        public var action: String
        /// The status before and after.
        public var statusBefore: String?
        /// The status after the step.
        public var status: String
        /// The decision's fields (`action`, `reason`, texts), as `permit decide --format json`.
        public var decision: [String: String]
        /// The decision's reason.
        public var reason: String?
        /// Guardrail warnings, `name: message`.
        public var warnings: [String]
        /// Errors the policy raised.
        public var errors: [String]
        /// What the policy printed with `trace`.
        public var trace: String
        /// The `permit run` line.
        public var summary: String
        /// What the user sees.
        public var screen: Screen
        /// The inline row beneath a modal on top, drawn under it; `nil` when there is none.
        public var beneath: Screen?
        /// Why the step failed its expectations; empty when it passed.
        public var failures: [String]
    }

    /// A scenario's timeline in a locale.
    public struct Timeline: Codable, Sendable {
        /// The scenario's name.
        public var name: String
        /// The locale its device ran in.
        public var locale: String
        /// Each step.
        public var steps: [Step]
        /// The scenario's problem when it could not run.
        public var problem: String?
    }

    /// One decision, as `permit decide` gives it.
    public struct Decide: Codable, Sendable {
        /// `permit decide`'s text output.
        public var text: String
        /// The decision's fields.
        public var decision: [String: String]
        /// The status after.
        public var status: String?
        /// Guardrail warnings.
        public var warnings: [String]
        /// Errors (the policy's, or the input's).
        public var errors: [String]
        /// What the user sees.
        public var screen: Screen?
        /// The decision's `row` beneath the modal it shows, drawn under it; `nil` when there is none.
        public var beneath: Screen?
    }

    /// Every text the policy can show, by locale.
    public struct Copy: Codable, Sendable {
        /// The columns: the declared locales, then every other locale a text has.
        public var locales: [String]
        /// One row per text.
        public var rows: [CopyRow]
        /// The translation problems `permit check` reports.
        public var problems: [String]
    }

    /// One text of the policy.
    public struct CopyRow: Codable, Sendable {
        /// Where it shows: `soft_prompt (first ask)`.
        public var place: String
        /// The field: `title`, `message`, `accept`, ...
        public var field: String
        /// The text per locale; a plain text is under `*`.
        public var texts: [String: String]
        /// The declared locales it does not reach (the user sees English).
        public var missing: [String]
    }
}
