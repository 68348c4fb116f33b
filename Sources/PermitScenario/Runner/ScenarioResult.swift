import PermitCore
import PermitInput
import PermitSimulator

/// What happened at one step, and whether it met its expectations.
public struct StepResult: Sendable {
    /// The step's number, from 1.
    public var number: Int
    /// Where the step is written.
    public var location: SourceLocation
    /// What the step did, in words (`event app_launch`, `answer allow`, ...).
    public var action: String
    /// Unix seconds after the step's `after`.
    public var time: Int64
    /// The engine's outcome, for steps that send an event.
    public var outcome: Outcome?
    /// Events the app heard during the step before its own: a significant time change at a
    /// midnight or daylight-saving switch while it ran in the foreground, or one queued while it
    /// was suspended and delivered as it returned (docs/platform.md Z-02, Z-03).
    public var earlierOutcomes: [Outcome] = []
    /// What the app had on screen after the step, as `expect_screen` names it (`inform_page`).
    public var screen = "nothing"
    /// The inline row beneath that, when a modal is on top of it (`inline_settings_prompt`):
    /// the row stays on its screen and is there again when the modal goes.
    public var rowBeneath: String?
    /// The status the app knows after the step.
    public var status: PermissionStatus
    /// Reminders waiting after the step.
    public var pendingReminders: Int
    /// Their fire dates on the device's wall clock (`yyyy-MM-dd HH:mm`), soonest first.
    public var pendingLocalTimes: [String] = []
    /// The notifications the step posted (`notify`), with how the device delivered each.
    public var notified: [PostedNotification] = []
    /// For an `external_request` step: whether the system dialog appeared for the other SDK.
    public var externalDialogShown: Bool?
    /// Why the step failed; empty when it passed.
    public var failures: [String]
    /// Lines for the trace: what followed at once, what the world did.
    public var notes: [String]

    /// Whether every expectation held.
    public var passed: Bool { failures.isEmpty }
}

/// One scenario's run.
public struct ScenarioResult: Sendable {
    /// The scenario's name.
    public var name: String
    /// The scenario file.
    public var file: String
    /// The policy's name.
    public var policyName: String
    /// Unix seconds at step 1, which timelines count from.
    public var start: Int64
    /// The steps that ran.
    public var steps: [StepResult]
    /// Set when the scenario stopped early (a step could not be carried out).
    public var abortedAfterStep: Int?
    /// Steps written in the file.
    public var totalSteps: Int

    /// Whether every step ran and passed.
    public var passed: Bool { abortedAfterStep == nil && steps.allSatisfy(\.passed) }
    /// The steps that failed.
    public var failedSteps: [StepResult] { steps.filter { !$0.passed } }
}
