import PermitLua

extension LuaLimits {
    /// The app's limits (its instruction budget, memory cap and time limit, the wall-clock one
    /// already ten times longer in a sanitizer build) with a deadline margin of 5 s instead of
    /// 5 ms, for tests whose subject is not the deadline.
    ///
    /// Why: the deadline is wall-clock, and a test suite on two cores keeps a policy's thread
    /// waiting for a processor. Across whole runs of the suite, calls that do well under a
    /// millisecond of work were measured waiting up to 55 ms; past 50 + 5 ms the caller stops
    /// waiting and the VM is never run again, so every later call of the test fails with a
    /// message blaming a healthy policy. The deadline has its own tests (`DeadlineTests`,
    /// `DeadlineRevertTests`), which give the app's 50 + 5 ms explicitly.
    public static let wideDeadline: LuaLimits = {
        var limits = LuaLimits.default
        limits.deadlineMarginMilliseconds = 5_000
        return limits
    }()
}
