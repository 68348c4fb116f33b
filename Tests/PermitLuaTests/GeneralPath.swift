import PermitCore

@testable import PermitLua

/// The general ("slow") ctx and decision path: `ctx` built as a `LuaValue` tree and pushed by
/// `LuaVM.push`, every result copied out and worded by `DecisionReader`. Nothing ships on it:
/// the engine's path is the warm one (`FastPath`, `LazyFieldsEncoder`). It lives here as the
/// tests' oracle, written the plain way so the warm path can be compared with it field by
/// field and word for word.
extension LuaPolicy {
    /// `plan_reminders` through the general path (every result copied, then `DecisionReader`).
    func generalPlanReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        let result = try runtime.alive { (runtime: inout Runtime) throws(PolicyError) -> LuaValue in
            do throws(LuaError) {
                let ctx = try contextValue(context, runtime: &runtime)
                return try runtime.vm.call(runtime.planReminders!, [ctx]).first ?? .nil
            } catch {
                throw LuaPolicy.policyError(error, chunkName: chunkName, loading: false, result: "reminders")
            }
        }
        return try DecisionReader.reminders(from: result)
    }

    /// `ctx` as the warm path pushes it and as the general path (a `LuaValue` tree pushed by
    /// `LuaVM.push`) builds it, both read back from the VM.
    func contextsForTesting(_ context: PolicyContext) throws(LuaError) -> (fast: LuaValue, general: LuaValue) {
        try runtime.alive { (runtime: inout Runtime) throws(LuaError) -> (fast: LuaValue, general: LuaValue) in
            let identity = try runtime.vm.load("return ...", chunkName: "=identity")
            defer { runtime.vm.release(identity) }
            let fast = try callWithContext(identity, context, runtime: &runtime) { stack, base throws(LuaError) in
                try stack.vm.readResults(above: base).first ?? .nil
            }
            let general = try runtime.vm.call(identity, [try contextValue(context, runtime: &runtime)]).first ?? .nil
            return (fast, general)
        }
    }

    /// `decide` through the general path: the context as a `LuaValue` tree, every result copied,
    /// then `DecisionReader`.
    func generalDecide(_ context: PolicyContext) throws(PolicyError) -> Decision? {
        let result = try runtime.alive { (runtime: inout Runtime) throws(PolicyError) -> LuaValue in
            do throws(LuaError) {
                let ctx = try contextValue(context, runtime: &runtime)
                return try runtime.vm.call(runtime.decide, [ctx]).first ?? .nil
            } catch {
                throw LuaPolicy.policyError(error, chunkName: chunkName, loading: false, result: "decision")
            }
        }
        return try DecisionReader.decision(from: result)
    }

    /// Whether `decide`'s result is read in place (`false`: handed to the general path).
    func readsInPlaceForTesting(_ context: PolicyContext) throws(LuaError) -> Bool {
        try runtime.alive { (runtime: inout Runtime) throws(LuaError) -> Bool in
            let result = try callWithContext(runtime.decide, context, runtime: &runtime) { stack, base throws(LuaError) in
                try FastPath.readDecision(stack, base: base)
            }
            if case .decision = result { return true }
            return false
        }
    }

    /// `decide` with the `n`th allocation growth in the call refused (`LuaVM.failAllocation`);
    /// also whether the refusal happened.
    func decideFailingAllocationForTesting(_ n: Int, _ context: PolicyContext) -> (Result<Decision?, PolicyError>, refused: Bool) {
        runtime.alive { $0.vm.failAllocation(n) }
        let result = Result { () throws(PolicyError) -> Decision? in try decide(context) }
        let refused = runtime.alive { runtime in
            defer { runtime.vm.failAllocation(0) }
            return !runtime.vm.allocationFailurePending
        }
        return (result, refused)
    }

    /// Stack top of the VM (0 between calls).
    var stackTopForTesting: Int { runtime.alive { $0.vm.stackTop } }

    /// Runs `body` with the policy's VM (tests that inject allocation failures).
    func withVMForTesting<R>(_ body: (LuaVM) -> R) -> R { runtime.alive { body($0.vm) } }

    /// The `ctx` table: a fresh table each call, with the unchanging parts passed as stored,
    /// read-only tables.
    func contextValue(_ context: PolicyContext, runtime: inout Runtime) throws(LuaError) -> LuaValue {
        _ = try cachedParts(context, runtime: &runtime)
        let cache = (
            platform: runtime.platformCache!.platform_, capabilities: runtime.platformCache!.capabilities,
            params: runtime.paramsCache!.ref
        )
        return .table(
            LuaTable([
                "event": LuaBridge.event(context.event, promptID: context.promptID),
                "status": .string(context.status.rawValue),
                "previous_status": .string(context.previousStatus.rawValue),
                "settings": LuaBridge.settings(context.settings),
                "platform": .ref(cache.platform),
                "capabilities": .ref(cache.capabilities),
                "history": LuaBridge.history(context.history, declaredEvents: declaredEvents),
                "state": LuaBridge.table(context.state),
                "params": .ref(cache.params),
                "now": .integer(context.now),
                "locale": .string(context.locale),
                "app": .ref(runtime.appCache!.ref),
                "user": .table(
                    LuaTable([
                        "bucket": .integer(Int64(context.userBucket)),
                        "arms": .table(LuaTable(context.arms.mapValues(LuaValue.string))),
                    ])),
                "local_time": .table(
                    LuaTable([
                        "date": .string(context.localTime.date), "hour": .integer(Int64(context.localTime.hour)),
                        "minute": .integer(Int64(context.localTime.minute)),
                        "weekday": .integer(Int64(context.localTime.weekday)),
                        "timezone": .string(context.localTime.timeZone),
                    ])),
            ]))
    }
}

extension LuaPolicy {
    /// How many `plan_reminders` lists were the last one again, answered without reading them.
    var reminderListHitsForTesting: Int { runtime.alive { $0.reminderList.hits } }
    var reminderListBufferBytesForTesting: Int { runtime.alive { $0.reminderList.bufferBytes } }
}

extension DeadlineLocked {
    /// `withLock` on a VM the test knows was never abandoned (no call of it overran).
    func alive<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try withLock(body)!
    }
}
