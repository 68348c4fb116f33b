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
    /// The best CPU time, in nanoseconds, of `rounds` replays of `calls`, each in a fresh VM of
    /// `source` under `limits`. Throws when the policy does not load or a call fails, which a
    /// replay of calls that succeeded in the recording must not do. Never inlined: a frame of
    /// its own is what a profiler's filter (callgrind's `--toggle-collect`) can select.
    @inline(never) public static func cpuNanoseconds(
        source: String, chunkName: String, limits: LuaLimits = .default,
        calls: [(context: PolicyContext, planning: Bool)], rounds: Int = MinimalReference.rounds
    ) throws -> Double {
        var best = Double.infinity
        for _ in 0..<max(1, rounds) {
            let policy = try LuaPolicy(source: source, chunkName: chunkName, limits: limits)
            var failures = 0
            let before = Bench.cpuSeconds()
            for call in calls {
                if call.planning {
                    do { _ = try policy.planReminders(call.context) } catch { failures += 1 }
                } else if case .failure = policy.answer(call.context).decision {
                    failures += 1
                }
            }
            let spent = (Bench.cpuSeconds() - before) * 1e9
            guard failures == 0 else { throw Failure(calls: failures) }
            best = min(best, spent)
        }
        return best
    }

    /// Some replayed calls failed: the recording and the replay disagree.
    public struct Failure: Error, CustomStringConvertible {
        /// How many calls failed.
        public let calls: Int
        /// What went wrong, for the benchmark's output.
        public var description: String { "\(calls) replayed policy call(s) failed in Permit's policy layer" }
    }
}
