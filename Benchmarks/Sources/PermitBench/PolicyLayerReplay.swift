import PermitCore
import PermitLua

/// Permit's policy layer alone on recorded calls: the very contexts the minimal host replays,
/// handed to a `LuaPolicy` as the engine hands them (`answer` for a decision, `planReminders`
/// for reminders), with no engine, device, ledger or guardrails around it.
///
/// Why: the goal compares a whole event (engine and policy) with the minimal host's Lua work.
/// This splits Permit's side in two: what the sandboxed VM and its bridge cost on the host's
/// own calls, and what the engine adds around them. A ratio of this layer to the host above
/// the goal means no work on the engine alone can meet it.
public enum PolicyLayerReplay {
    /// One measurement of the layer.
    public struct Measurement: Sendable {
        /// The best CPU time of the replays, in nanoseconds, for all the calls.
        public let cpuNanoseconds: Double
        /// Calls that failed in a replay (a policy error, the budget): they are timed as what
        /// they are, since the engine's run met the same errors; 0 for a policy that never fails.
        public let failedCalls: Int
    }

    /// Replays `calls` `rounds` times, each time in a fresh VM of `source` under `limits`, and
    /// keeps the best. Throws only when the policy does not load. The VM's `math.random` is
    /// seeded as `LuaPolicy`'s default, not as the recording's: a policy that draws may take
    /// other branches here (no pack draws). Never inlined: a frame of its own is what a
    /// profiler's filter (callgrind's `--toggle-collect`) can select.
    @inline(never) public static func measure(
        source: String, chunkName: String, limits: LuaLimits = .default,
        calls: [(context: PolicyContext, planning: Bool)], rounds: Int = MinimalReference.rounds
    ) throws -> Measurement {
        var best = Double.infinity
        var failures = 0
        for _ in 0..<max(1, rounds) {
            let policy = try LuaPolicy(source: source, chunkName: chunkName, limits: limits)
            failures = 0
            let before = Bench.cpuSeconds()
            for call in calls {
                if call.planning {
                    do { _ = try policy.planReminders(call.context) } catch { failures += 1 }
                } else if case .failure = policy.answer(call.context).decision {
                    failures += 1
                }
            }
            best = min(best, (Bench.cpuSeconds() - before) * 1e9)
        }
        return Measurement(cpuNanoseconds: best, failedCalls: failures)
    }
}
