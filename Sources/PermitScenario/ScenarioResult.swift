import PermitCore
import PermitInput

/// What happened at one step, and whether it met its expectations.
public struct StepResult: Sendable {
    public var number: Int
    public var location: SourceLocation
    /// What the step did, in words (`event app_launch`, `answer allow`, ...).
    public var action: String
    /// Unix seconds after the step's `after`.
    public var time: Int64
    /// The engine's outcome, for steps that send an event.
    public var outcome: Outcome?
    /// The status the app knows after the step.
    public var status: PermissionStatus
    public var pendingReminders: Int
    /// Why the step failed; empty when it passed.
    public var failures: [String]
    /// Lines for the trace: what followed at once, what the world did.
    public var notes: [String]

    public var passed: Bool { failures.isEmpty }
}

/// One scenario's run.
public struct ScenarioResult: Sendable {
    public var name: String
    public var file: String
    public var policyName: String
    public var start: Int64
    public var steps: [StepResult]
    /// Set when the scenario stopped early (a step could not be carried out).
    public var abortedAfterStep: Int?
    /// Steps written in the file.
    public var totalSteps: Int

    public var passed: Bool { abortedAfterStep == nil && steps.allSatisfy(\.passed) }
    public var failedSteps: [StepResult] { steps.filter { !$0.passed } }
}
