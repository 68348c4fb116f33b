import CLuaShim
import Foundation
import PermitCore

/// A policy script (docs/reference/policy.md#policy) running in its own sandboxed `LuaVM`.
///
/// The VM sits behind a lock, so a `LuaPolicy` may be shared across threads while its
/// `lua_State` is only ever entered by one of them at a time. With a deadline
/// (`LuaLimits.deadlineMarginMilliseconds`, on by default) the VM lives on a thread of its own
/// (`PolicyThread`): loading, `decide`, `plan_reminders` and `restart` run there while the
/// caller waits at most the time limit plus the margin; a call that overruns fails with a
/// `deadline` error and the VM is never entered again. Everything that does not change
/// between calls (the compiled functions, the platform and capability tables, the merged
/// params) is kept in the VM's registry instead of being rebuilt for every event.
public final class LuaPolicy: Policy, LineCoverageReporting, DecisionCoverageReporting {
    /// What `remember = { key = permit.forget }` stores to delete a key: Lua tables cannot
    /// hold `nil`, so deletion needs a marker. A NUL byte keeps it out of real text.
    public static let forgetMarker = "\u{0}permit.forget"

    /// The fields a policy table may have.
    public static let policyFields = [
        "name", "params", "events", "decide", "plan_reminders", "remember_durable", "experiments", "locales",
    ]

    /// What the script declares: its `name`, whether it has `plan_reminders`, what it keeps
    /// across a reinstall (`remember_durable`), its `experiments` (sorted by name) and its
    /// `events`; a policy loaded from a file or built in has no version.
    public let declaration: PolicyDeclaration
    /// The chunk name errors carry: the policy's path as the user gave it.
    public let chunkName: String
    /// The policy's own params, before host or scenario overrides.
    public let defaultParams: [String: PolicyValue]
    /// The locales every text of the policy must carry (`locales = { "en", "es" }`), which
    /// `permit check` holds each probed decision's texts to; empty when not declared.
    public let locales: [String]
    /// The budgets its calls run under, as it was loaded with them (a benchmark that loads the
    /// same source again uses these, not its own copy of the flags).
    public let limits: LuaLimits

    /// Internal, not private: the test oracle (Tests/PermitLuaTests/GeneralPath.swift) calls
    /// into the same VM.
    let runtime: DeadlineLocked<Runtime>

    /// What lives in the VM between calls.
    struct Runtime {
        let vm: LuaVM
        /// The file's main chunk, run again by `restart`.
        let chunk: LuaRef
        let decide: LuaRef
        let planReminders: LuaRef?
        /// Lines with code, when coverage is recorded.
        var executableLines: Set<Int>?
        /// Which `return` of `decide` answered what, when coverage is recorded.
        var decisions: DecisionCoverage?
        /// Where the last `decide` call returned, until its decision is read and counted.
        var lastReturnLine: Int?
        /// The current device's entry of `platformTables`, so that a call on the same device
        /// compares platforms instead of hashing one for the lookup.
        var platformCache: (platform: Platform, platform_: LuaRef, capabilities: LuaRef)?
        /// The platform and capabilities tables of the devices seen before (at most
        /// `platformTablesKept`): one VM serves many simulated users, each on its own iOS
        /// version, and a user whose device was seen already reuses its tables.
        var platformTables: [Platform: (platform_: LuaRef, capabilities: LuaRef)] = [:]
        var paramsCache: (overrides: [String: PolicyValue], ref: LuaRef)?
        /// The locale as a stored string, so a call pushes it without hashing its text again.
        var localeCache: (locale: String, ref: LuaRef)?
        /// The stored platform, capabilities and locale in one list (`PERMIT_SHARED_*`): each
        /// ctx's snapshot holds it, and builds those fields from it on first read.
        var shared: LuaRef?
        /// The interned key strings of the warm path, stored on the first call.
        var keys: LuaRef?
        /// The slots of `keys` and the cached tables, while none of them changes.
        var slots: FastPath.Cached?
        /// Writes the ctx fields built on first use (buffers reused between calls).
        let lazyFields: LazyFieldsEncoder
        /// `plan_reminders`' last list, so an unchanged one is not read again.
        let reminderList = ReminderListMemo()
        var trace: [String] = []
        /// Why the last `restart` failed: until one succeeds, this process has no policy and
        /// every call fails with it (the old functions belong to another process).
        var restartFailure: LuaError?
    }

    /// Loads a policy from source text. `chunkName` names it in every error (`polite/policy.lua:12: ...`).
    ///   - coverage: record which lines run (`permit test --coverage`); costs a hook per line.
    public convenience init(
        source: String, chunkName: String, limits: LuaLimits = .default, randomSeed: UInt64 = 0, coverage: Bool = false
    ) throws(PolicyError) {
        let thread = LuaPolicy.thread(for: limits, chunkName: chunkName)
        let compiled = try LuaPolicy.loading(on: thread, limits: limits, chunkName: chunkName) {
            Result { () throws(PolicyError) -> Compiled in
                try LuaPolicy.compile(source, chunkName: chunkName, limits: limits, randomSeed: randomSeed, coverage: coverage)
            }
        }
        try self.init(compiled, chunkName: chunkName, thread: thread)
    }

    /// The policy a compiled file describes; its first problem, if it has any, is thrown.
    /// `thread` is the one the file was compiled on, which the VM then stays on.
    private init(_ compiled: Compiled, chunkName: String, thread: PolicyThread?) throws(PolicyError) {
        let shape = compiled.shape
        guard shape.problems.isEmpty, let name = shape.name, let decide = shape.decide else {
            compiled.release()
            thread?.stop()
            throw shape.problems.first ?? PolicyError(kind: .load, message: "not a policy", file: chunkName)
        }
        self.declaration = PolicyDeclaration(
            name: name, plansReminders: shape.planReminders != nil, durableKeys: shape.durableKeys,
            experiments: shape.experiments, declaredEvents: shape.events)
        self.chunkName = chunkName
        self.defaultParams = shape.params
        self.locales = shape.locales
        self.limits = compiled.vm.limits
        self.runtime = DeadlineLocked(
            Runtime(
                vm: compiled.vm, chunk: compiled.chunk, decide: decide, planReminders: shape.planReminders,
                executableLines: compiled.executableLines, decisions: compiled.decisions,
                lazyFields: LazyFieldsEncoder(declaredEvents: shape.events)),
            thread: thread, deadlineNanoseconds: compiled.vm.limits.deadlineNanoseconds ?? 0)
    }

    /// A policy file compiled and run once in a fresh VM: what it returned, read as a policy.
    private struct Compiled {
        let vm: LuaVM
        let chunk: LuaRef
        let results: [LuaValue]
        let shape: Shape
        let executableLines: Set<Int>?
        let decisions: DecisionCoverage?

        /// Lets go of everything the file returned (when no `LuaPolicy` keeps the VM).
        func release() {
            for value in results { vm.releaseRefs(in: value) }
            vm.release(chunk)
        }
    }

    /// Compiles and runs the file's chunk; a syntax or load error throws, problems of the
    /// returned table are collected in `shape` (so `permit check` can list them all).
    private static func compile(
        _ source: String, chunkName: String, limits: LuaLimits, randomSeed: UInt64 = 0, coverage: Bool = false
    ) throws(PolicyError) -> Compiled {
        let vm = LuaVM(limits: limits, randomSeed: randomSeed)
        if coverage { vm.recordCoverage(true) }
        let chunk: LuaRef
        let results: [LuaValue]
        do throws(LuaError) {
            try StrictContext.define(in: vm)
            chunk = try vm.load(source, chunkName: chunkName)
            results = try vm.call(chunk, [], keepFunctions: true)
        } catch {
            throw LuaPolicy.policyError(error, chunkName: chunkName, loading: true, result: "policy")
        }
        var executable: Set<Int>?
        let policyShape = shape(of: results.first, source: source, chunkName: chunkName)
        var decisions: DecisionCoverage?
        if coverage {
            let functions = [chunk] + (results.first?.tableValue?.entries.compactMap(\.value.refValue) ?? [])
            executable = Set(vm.executableLines(of: functions, chunkName: chunkName))
            let span = policyShape.decide.flatMap(vm.lineSpan(of:))
            decisions = DecisionCoverage(
                file: chunkName,
                returnLines: span.map { DecisionCoverage.returnLines(in: source, from: $0.lowerBound, to: $0.upperBound) } ?? [])
        }
        return Compiled(vm: vm, chunk: chunk, results: results, shape: policyShape, executableLines: executable, decisions: decisions)
    }

    /// What a policy table holds, and everything wrong with it.
    private struct Shape {
        var name: String?
        var decide: LuaRef?
        var planReminders: LuaRef?
        var params: [String: PolicyValue] = [:]
        var durableKeys = DurableKeys.none
        var experiments: [Experiment] = []
        var events: [String] = []
        var locales: [String] = []
        var problems: [PolicyError] = []
    }

    /// Validates the value a policy file returned, collecting every problem rather than the
    /// first, so `permit check` can report them all at once.
    private static func shape(of value: LuaValue?, source: String, chunkName: String) -> Shape {
        var shape = Shape()
        func problem(_ field: String?, _ message: String) {
            shape.problems.append(PolicyError(kind: .load, field: field, message: message, file: chunkName))
        }
        guard let value, case .table(let table) = value else {
            problem(
                nil,
                "the file must return a table like { name = \"polite\", decide = function(ctx) ... end }, "
                    + "got \(value.map(DecisionReader.describe) ?? "nothing")")
            return shape
        }
        for entry in table.entries {
            guard case .string(let key) = entry.key, policyFields.contains(key) else {
                let key = entry.key.stringValue ?? DecisionReader.describe(entry.key)
                problem("policy.\(key)", "not a field of a policy; \(Suggestion.hint(for: key, in: policyFields))")
                continue
            }
        }
        if case .string(let name)? = table["name"], !name.isEmpty {
            shape.name = name
        } else {
            problem("policy.name", "missing; give the policy a name, e.g. name = \"polite\"")
        }
        if case .ref(let decide)? = table["decide"], decide.typeName == "function" {
            shape.decide = decide
        } else {
            problem("policy.decide", "missing; a policy needs decide = function(ctx) ... end")
        }
        if let value = table["plan_reminders"] {
            if case .ref(let ref) = value, ref.typeName == "function" {
                shape.planReminders = ref
            } else {
                problem("policy.plan_reminders", "expected a function, got \(DecisionReader.describe(value))")
            }
        }
        if let value = table["remember_durable"] {
            let durable = DurableKeysReader.read(value)
            shape.durableKeys = durable.keys
            for (field, message) in durable.problems { problem(field, message) }
        }
        if let value = table["experiments"] {
            let read = ExperimentsReader.read(value, source: source, chunkName: chunkName)
            shape.experiments = read.experiments
            shape.problems += read.problems
        }
        if let value = table["events"] {
            let declared = DeclaredEvents.read(value, source: source, chunkName: chunkName)
            shape.events = declared.names
            shape.problems += declared.problems
        }
        if let value = table["locales"] {
            let declared = DeclaredLocales.read(value, source: source, chunkName: chunkName)
            shape.locales = declared.tags
            shape.problems += declared.problems
        }
        if let value = table["params"] { readParams(value, chunkName: chunkName, into: &shape) }
        return shape
    }

    /// The policy's `params`: plain data under string keys; each problem is collected.
    private static func readParams(_ value: LuaValue, chunkName: String, into shape: inout Shape) {
        func problem(_ field: String?, _ message: String) {
            shape.problems.append(PolicyError(kind: .load, field: field, message: message, file: chunkName))
        }
        guard case .table(let paramsTable) = value else {
            problem("policy.params", "expected a table of defaults, got \(DecisionReader.describe(value))")
            return
        }
        for entry in paramsTable.entries {
            guard case .string(let key) = entry.key else {
                problem("policy.params", "param names must be strings, got \(DecisionReader.describe(entry.key))")
                continue
            }
            do {
                shape.params[key] = try LuaBridge.policyValue(entry.value, path: "policy.params.\(key)")
            } catch {
                var error = error
                error.file = chunkName
                shape.problems.append(error)
            }
        }
    }

    /// Every problem of a policy file at once (an empty list when it is valid): a reading,
    /// syntax or load error, or each problem of the table it returns.
    public static func problems(
        contentsOf url: URL, displayName: String? = nil, limits: LuaLimits = .default
    ) -> [PolicyError] {
        check(contentsOf: url, displayName: displayName, limits: limits).problems
    }

    /// `permit check`: the loaded policy when the file is valid, else every problem at once
    /// (`policy` is then nil). The file is read and compiled once.
    public static func check(
        contentsOf url: URL, displayName: String? = nil, limits: LuaLimits = .default
    ) -> (policy: LuaPolicy?, problems: [PolicyError]) {
        let name = displayName ?? url.path
        let compiled: Compiled
        let thread = LuaPolicy.thread(for: limits, chunkName: name)
        do {
            let text = try source(contentsOf: url, displayName: name)
            compiled = try loading(on: thread, limits: limits, chunkName: name) {
                Result { () throws(PolicyError) -> Compiled in try compile(text, chunkName: name, limits: limits) }
            }
        } catch {
            thread?.stop()
            return (nil, [error])
        }
        let problems = compiled.shape.problems
        do {
            return (try LuaPolicy(compiled, chunkName: name, thread: thread), [])
        } catch {
            return (nil, problems.isEmpty ? [error] : problems)
        }
    }

    /// The text of a policy file, refusing what the sandbox never runs: precompiled bytecode,
    /// text that is not UTF-8. Errors name the file as `displayName` (default: the path).
    public static func source(contentsOf url: URL, displayName: String? = nil) throws(PolicyError) -> String {
        let name = displayName ?? url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PolicyError(kind: .load, message: "cannot read the policy (\(error.localizedDescription))", file: name)
        }
        guard let source = String(data: data, encoding: .utf8) else {
            if data.first == 0x1B {
                throw PolicyError(kind: .load, message: "precompiled Lua bytecode is refused; ship the policy as source text", file: name)
            }
            throw PolicyError(kind: .load, message: "the policy is not UTF-8 text", file: name)
        }
        return source
    }

    /// Loads `url`; errors name it as `displayName` (default: the path).
    public static func load(
        contentsOf url: URL, displayName: String? = nil, limits: LuaLimits = .default, randomSeed: UInt64 = 0,
        coverage: Bool = false
    ) throws(PolicyError) -> LuaPolicy {
        let name = displayName ?? url.path
        return try LuaPolicy(
            source: try source(contentsOf: url, displayName: name), chunkName: name, limits: limits, randomSeed: randomSeed,
            coverage: coverage)
    }

    // MARK: Policy

    /// Runs `decide(ctx)` under the VM's lock and reads the decision.
    public func decide(_ context: PolicyContext) throws(PolicyError) -> Decision? {
        // Without a deadline thread the call runs in place: no closure is made for it.
        if !runtime.hasThread,
            let (result, line) = runtime.withLock({ runtime in (call(context, runtime: &runtime), runtime.lastReturnLine) })
        {
            return try counted(decision(from: result), returnedAt: line)
        }
        let (result, line) = try onVM("deciding") { runtime in (self.call(context, runtime: &runtime), runtime.lastReturnLine) }
        return try counted(decision(from: result), returnedAt: line)
    }

    /// `decide` and the trace under one lock: the engine's call for every event.
    public func answer(_ context: PolicyContext) -> PolicyAnswer {
        let ran: (result: Result<FastPath.DecisionResult, PolicyError>, trace: String, line: Int?)
        // Without a deadline thread the call runs in place: no closure is made for it.
        if !runtime.hasThread,
            let direct = runtime.withLock({ runtime in
                (call(context, runtime: &runtime), LuaPolicy.trace(runtime.vm), runtime.lastReturnLine)
            })
        {
            ran = direct
        } else {
            do throws(PolicyError) {
                ran = try onVM("deciding") { runtime in
                    (self.call(context, runtime: &runtime), LuaPolicy.trace(runtime.vm), runtime.lastReturnLine)
                }
            } catch {
                return PolicyAnswer(decision: .failure(error), trace: "")
            }
        }
        let (result, trace, line) = ran
        // The result is consumed, not captured by a `Result { ... }` closure: a capture copied it
        // (and destroyed the original) on every event.
        let decision: Result<Decision?, PolicyError>
        do {
            decision = .success(try counted(self.decision(from: consume result), returnedAt: line))
        } catch {
            decision = .failure(error)
        }
        return PolicyAnswer(decision: decision, trace: trace)
    }

    /// Counts `decision` against the `return` that gave it, when coverage is recorded.
    private func counted(_ decision: Decision?, returnedAt line: Int?) -> Decision? {
        guard let line else { return decision }
        let action = (decision?.action ?? Decision.Action.none).name
        runtime.withLock { runtime in runtime.decisions?.record(line: line, action: action, reason: decision?.reason) }
        return decision
    }

    /// `decide` in the VM: the warm path, its result read in place when it can be.
    private func call(_ context: PolicyContext, runtime: inout Runtime) -> Result<FastPath.DecisionResult, PolicyError> {
        do throws(LuaError) {
            defer { if runtime.decisions != nil { runtime.lastReturnLine = runtime.vm.lastReturnLine } }
            return .success(
                try callWithContext(runtime.decide, context, runtime: &runtime) { stack, base throws(LuaError) in
                    try FastPath.readDecision(stack, base: base)
                })
        } catch {
            return .failure(LuaPolicy.policyError(error, chunkName: chunkName, loading: false, result: "decision"))
        }
    }

    /// Calls `function` with the warm path's ctx for `context` (`FastPath.pushContext`) and reads
    /// its results while they are on the stack. `context` is the source of ctx's lazy fields for
    /// as long as the call lasts: it is lent by pointer, not copied.
    func callWithContext<T>(
        _ function: LuaRef, _ context: PolicyContext, runtime: inout Runtime,
        readResults: (LuaVM.LuaStack, _ base: Int32) throws(LuaError) -> T
    ) throws(LuaError) -> T {
        if let failure = runtime.restartFailure { throw failure }
        let cached = try cachedParts(context, runtime: &runtime)
        let lazyFields = runtime.lazyFields
        let vm = runtime.vm
        return try withUnsafePointer(to: context) { context throws(LuaError) in
            try vm.callDirect(
                function,
                pushArgument: { stack throws(LuaError) in
                    try FastPath.pushContext(context, cached: cached, lazyFields: lazyFields, on: stack)
                },
                readResults: readResults)
        }
    }

    /// A decision read in place, or validated and worded by `DecisionReader` (outside the lock).
    private func decision(from result: consuming Result<FastPath.DecisionResult, PolicyError>) throws(PolicyError) -> Decision? {
        // Consumed: the decision is moved out of the result, not copied and the result destroyed.
        switch consume result {
        case .success(.decision(let decision)): return decision
        case .success(.general(let value)): return try DecisionReader.decision(from: value)
        case .failure(let error): throw error
        }
    }

    /// Runs `plan_reminders(ctx)` under the VM's lock and reads the list.
    public func planReminders(_ context: PolicyContext) throws(PolicyError) -> [ReminderRequest] {
        guard plansReminders else { return [] }
        let chunkName = chunkName
        let result = try onVM("planning reminders") { (runtime: inout Runtime) -> Result<FastPath.RemindersResult, PolicyError> in
            do throws(LuaError) {
                let memo = runtime.reminderList
                return .success(
                    try self.callWithContext(runtime.planReminders!, context, runtime: &runtime) { stack, base throws(LuaError) in
                        try FastPath.readReminders(stack, base: base, memo: memo)
                    })
            } catch {
                return .failure(LuaPolicy.policyError(error, chunkName: chunkName, loading: false, result: "reminders"))
            }
        }.get()
        switch result {
        case .reminders(let reminders): return reminders
        case .general(let value): return try DecisionReader.reminders(from: value)
        }
    }

    /// Starts the policy over as a new process of the app loads it (`permit simulate`'s cold
    /// launches), on the same VM: the file's main chunk runs again in a fresh environment, so
    /// the new run sees none of the previous one's globals or top-level locals, `math.random`
    /// is seeded with `randomSeed`, and `tostring` numbers objects from `#1` again. The
    /// libraries and the host's stored ctx tables are the same read-only objects; the run is a
    /// call like any other (budgets, memory cap). What the first load read (`name`, `params`,
    /// `events`, `experiments`, `remember_durable`) stays; `decide` and `plan_reminders` are the
    /// new run's. An error (the run failed, or returned no policy with the same functions)
    /// leaves this process with no policy: every `decide` and `plan_reminders` fails with that
    /// error until a restart succeeds, as a real app whose policy file failed to load has
    /// none; the previous run's functions (and what they kept) never serve the new process.
    public func restart(randomSeed: UInt64) throws(PolicyError) {
        let chunkName = chunkName
        try onVM("starting over") { (runtime: inout Runtime) -> Result<Void, PolicyError> in
            do throws(LuaError) {
                runtime.restartFailure = nil
                try runtime.vm.rerun(
                    runtime.chunk, randomSeed: randomSeed, decide: runtime.decide, planReminders: runtime.planReminders)
                return .success(())
            } catch {
                var failure = error
                failure.message += " (the main chunk failed when this process started, so it has no policy until the next launch)"
                runtime.restartFailure = failure
                return .failure(LuaPolicy.policyError(error, chunkName: chunkName, loading: false, result: "policy"))
            }
        }.get()
    }

    /// Checks host or scenario overrides against the params the script declares: an unknown
    /// name or another type fails with a suggestion, not silently.
    public func validate(params overrides: [String: PolicyValue]) throws(PolicyError) {
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let current = defaultParams[key] else {
                let known = defaultParams.keys.sorted()
                let hint = known.isEmpty ? "this policy declares no params" : Suggestion.hint(for: key, in: known)
                throw PolicyError(kind: .load, field: "params.\(key)", message: "\(name) has no param \"\(key)\"; \(hint)")
            }
            guard current.typeName == value.typeName else {
                throw PolicyError(
                    kind: .load, field: "params.\(key)",
                    message: "expected a \(current.typeName) like the policy's default \(current), got \(value)")
            }
        }
    }

    /// Lines `print` and `permit.log` wrote since the last call to this method; a note ends
    /// it when the cap dropped some.
    public func takeTrace() -> String {
        runtime.withLock { runtime in LuaPolicy.trace(runtime.vm) } ?? ""
    }

    /// Nothing to do: a script's health is judged by whoever holds it (a delivered policy's
    /// source counts errors against the bundle), not by the script itself.
    public func eventHandled(errors: [PolicyError]) {}

    private static func trace(_ vm: LuaVM) -> String {
        let trace = vm.drainTrace()
        guard trace.truncated else { return trace.text }
        return trace.text + "\n[trace capped: \(trace.droppedBytes) bytes dropped]"
    }

    /// The lines that ran so far, when the policy was loaded with `coverage: true`.
    public var lineCoverage: LineCoverage? {
        runtime.withLock { runtime -> LineCoverage? in
            guard let executable = runtime.executableLines else { return nil }
            let covered = Set(runtime.vm.coveredLines(chunkName: chunkName))
            // A closure created during a call is not reachable before it runs: its lines count
            // as executable once they have run.
            return LineCoverage(file: chunkName, executable: executable.union(covered), covered: covered)
        } ?? nil
    }

    /// Which `return` of `decide` answered what so far, when the policy was loaded with `coverage: true`.
    public var decisionCoverage: DecisionCoverage? {
        runtime.withLock { $0.decisions } ?? nil
    }

    /// Bytes the VM holds now.
    public var memoryInUse: Int { runtime.withLock { $0.vm.memoryInUse } ?? 0 }

    /// Most bytes the VM has held, for sizing `LuaLimits.memoryBytes`.
    public var peakMemory: Int { runtime.withLock { $0.vm.peakMemory } ?? 0 }

    /// Instructions (and charged C work) the last call used, for sizing the budget.
    public var instructionsUsedByLastCall: Int { runtime.withLock { $0.vm.instructionsUsedByLastCall } ?? 0 }

    // MARK: The deadline

    /// The thread a policy loaded under `limits` runs on; `nil` when it has no deadline.
    private static func thread(for limits: LuaLimits, chunkName: String) -> PolicyThread? {
        limits.deadlineNanoseconds == nil ? nil : PolicyThread(name: "permit policy \(chunkName)")
    }

    /// Runs a load (`compile`) on `thread`, waiting at most the deadline; a load that overruns
    /// is abandoned with its VM (freed on the thread when, if ever, it returns).
    static func loading<T>(
        on thread: PolicyThread?, limits: LuaLimits, chunkName: String, _ load: @escaping () -> Result<T, PolicyError>
    ) throws(PolicyError) -> T {
        guard let thread, let deadline = limits.deadlineNanoseconds else { return try load().get() }
        let box = JobResult<Result<T, PolicyError>>()
        switch thread.perform({ box.value = load() }, waitingAtMost: deadline) {
        case .finished:
            guard let result = box.value else { throw deadlineError(policy: chunkName, doing: "loading", limits: limits, file: chunkName) }
            return try result.get()
        case .notTaken:
            // Never started (the system gave the thread no processor in time): load here.
            return try load().get()
        case .abandoned:
            throw deadlineError(policy: chunkName, doing: "loading", limits: limits, file: chunkName)
        }
    }

    /// Runs `body` with the VM: on its thread within the deadline, or on the caller's thread
    /// when it has none. Throws the `deadline` error when this call or an earlier one overran.
    private func onVM<Result>(_ doing: String, _ body: @escaping (inout Runtime) -> Result) throws(PolicyError) -> Result {
        switch runtime.run(body) {
        case .done(let result): return result
        case .overran: throw LuaPolicy.deadlineError(policy: name, doing: doing, limits: limits, file: chunkName)
        case .abandoned:
            throw PolicyError(
                kind: .deadline,
                message:
                    "\(name) is not run again: an earlier call held its thread past \(LuaPolicy.deadlineText(limits)) "
                    + "and its VM was discarded; load the policy again (a delivered one was reverted)",
                file: chunkName)
        }
    }

    /// Whether a call overran the deadline, so that the VM is gone and every call fails at once.
    public var overranDeadline: Bool { runtime.isAbandoned }

    /// `50 ms (the time limit) + 5 ms (the deadline's margin)`.
    private static func deadlineText(_ limits: LuaLimits) -> String {
        "\(limits.timeLimitMilliseconds) ms (the time limit) + \(limits.deadlineMarginMilliseconds ?? 0) ms (the deadline's margin)"
    }

    /// The error of a call or load that overran: the caller stopped waiting.
    private static func deadlineError(policy: String, doing: String, limits: LuaLimits, file: String) -> PolicyError {
        PolicyError(
            kind: .deadline,
            message:
                "\(policy) held its thread past \(deadlineText(limits)) while \(doing), in work the VM's own checks "
                + "did not stop (a long loop inside a Lua library function?); the caller stopped waiting and the policy's "
                + "VM is never run again",
            file: file)
    }

    // MARK: Calls

    /// The stored parts of `ctx` (platform, capabilities, merged params, locale) and the
    /// interned keys, made again only when the platform, the overrides or the locale change.
    func cachedParts(_ context: PolicyContext, runtime: inout Runtime) throws(LuaError) -> FastPath.Cached {
        if let slots = runtime.slots, runtime.platformCache?.platform == context.platform,
            runtime.paramsCache?.overrides == context.params, runtime.localeCache?.locale == context.locale
        {
            return slots
        }
        var sharedIsStale = runtime.shared == nil
        if runtime.localeCache?.locale != context.locale {
            sharedIsStale = true
            if let old = runtime.localeCache { runtime.vm.release(old.ref) }
            runtime.localeCache = (context.locale, try runtime.vm.store(.string(context.locale), readOnly: false))
        }
        if runtime.platformCache?.platform != context.platform {
            sharedIsStale = true
            let tables = try platformTables(for: context, runtime: &runtime)
            runtime.platformCache = (context.platform, tables.platform_, tables.capabilities)
        }
        if runtime.paramsCache?.overrides != context.params {
            if let old = runtime.paramsCache { runtime.vm.release(old.ref) }
            let merged = defaultParams.merging(context.params) { _, override in override }
            runtime.paramsCache = (context.params, try runtime.vm.store(LuaBridge.table(merged), strict: Int32(PERMIT_STRICT_PARAMS)))
        }
        if runtime.keys == nil {
            runtime.keys = try runtime.vm.store(FastPath.internedTable, readOnly: false)
        }
        if sharedIsStale {
            // A new list: ctxs made before keep the old one (their snapshots hold it).
            if let old = runtime.shared { runtime.vm.release(old) }
            runtime.shared = nil
            let parts: [LuaValue] = [
                .ref(runtime.platformCache!.platform_), .ref(runtime.platformCache!.capabilities),
                .ref(runtime.localeCache!.ref),
            ]
            runtime.shared = try runtime.vm.store(.table(LuaTable(array: parts)), readOnly: false)
        }
        let slots = FastPath.Cached(
            keys: try runtime.vm.slot(of: runtime.keys!), params: try runtime.vm.slot(of: runtime.paramsCache!.ref),
            shared: try runtime.vm.slot(of: runtime.shared!))
        runtime.slots = slots
        return slots
    }

    /// How many devices' platform and capabilities tables a VM keeps (`Runtime.platformTables`);
    /// past it they are all released and stored again as devices come.
    static let platformTablesKept = 16

    /// The stored platform and capabilities tables of `context`'s device: kept ones, or new
    /// ones stored (read-only, strict) and kept.
    private func platformTables(
        for context: PolicyContext, runtime: inout Runtime
    ) throws(LuaError) -> (platform_: LuaRef, capabilities: LuaRef) {
        if let kept = runtime.platformTables[context.platform] { return kept }
        if runtime.platformTables.count >= Self.platformTablesKept {
            // Lists made before hold the tables themselves, not these references.
            for tables in runtime.platformTables.values {
                runtime.vm.release(tables.platform_)
                runtime.vm.release(tables.capabilities)
            }
            runtime.platformTables.removeAll()
        }
        let tables = (
            platform_: try runtime.vm.store(LuaBridge.platform(context.platform), strict: Int32(PERMIT_STRICT_PLATFORM)),
            capabilities: try runtime.vm.store(LuaBridge.capabilities(context.capabilities), strict: Int32(PERMIT_STRICT_CAPABILITIES))
        )
        runtime.platformTables[context.platform] = tables
        return tables
    }

    /// A Lua error as the core's typed error, with the policy file and line.
    /// - Parameter result: what the call returned, as errors name it (`decision`, `reminders`,
    ///   `policy`): the root of the field an error deep inside a returned table names.
    static func policyError(_ error: LuaError, chunkName: String, loading: Bool, result: String? = nil) -> PolicyError {
        let kind: PolicyError.Kind
        switch error.kind {
        case .syntax, .binaryChunkRefused: kind = .load
        case .instructionBudgetExceeded, .timeLimitExceeded: kind = .instructionBudget
        case .memoryExhausted: kind = .memory
        default: kind = loading && error.kind == .invalidUse ? .load : .runtime
        }
        var message = error.message
        // Lua prefixes messages with "chunk:line: "; the PolicyError prints file and line itself.
        if let line = error.line, let chunk = error.chunkName {
            let prefix = "\(chunk):\(line): "
            if message.hasPrefix(prefix) { message.removeFirst(prefix.count) }
        }
        switch error.kind {
        case .instructionBudgetExceeded:
            message = "the policy ran out of its instruction budget (an endless loop?): \(message)"
        case .timeLimitExceeded:
            message = "the policy ran past its time limit: \(message)"
        case .memoryExhausted where error.line == nil:
            // Lua reports a memory error without a position (no message handler runs for it),
            // so the function that was running is the most precise place there is.
            message =
                "the policy ran out of memory in \(function(of: result)): \(message) "
                + "(keep fewer or smaller tables and strings; the limit is LuaLimits.memoryBytes)"
        case .memoryExhausted:
            message = "the policy ran out of memory: \(message)"
        default:
            break
        }
        return PolicyError(
            kind: kind, field: error.valuePath.map { (result ?? "result") + $0 }, message: message,
            file: error.chunkName ?? chunkName, line: error.line, traceback: error.traceback)
    }

    /// The policy function whose call returns `result`, as a policy author names it.
    private static func function(of result: String?) -> String {
        switch result {
        case "decision": "decide"
        case "reminders": "plan_reminders"
        default: "the policy file's main chunk"
        }
    }
}
