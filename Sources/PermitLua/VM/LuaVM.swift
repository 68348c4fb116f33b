import CLuaShim

/// The one owner of a sandboxed Lua 5.4 state.
///
/// Ownership and threads: a `LuaVM` is deliberately not `Sendable`. It owns its
/// `lua_State` alone (no raw pointer ever leaves this type) and a `lua_State`
/// must never be used from two threads at once; Swift 6's region checking keeps
/// a `LuaVM` (and every non-Sendable value derived from it) in one isolation
/// domain at a time. Keep it inside one actor, or move it as a whole.
///
/// Every call runs under the instruction budget and the memory cap of
/// `limits`; any error (syntax, runtime, budget, memory, guard) leaves the VM
/// serving the next call normally with the Lua stack exactly as before.
public final class LuaVM {
    /// The limits every call runs under.
    public let limits: LuaLimits
    /// The state; internal for the tests (BoundaryTests replaces its allocator, TestHooks.swift
    /// calls the shim's test hooks on it), nothing else outside this file touches it.
    let L: OpaquePointer
    private let id: UInt64
    // A VM is used by one thread at a time (its owner's lock) and never re-entered (`running`):
    // dynamic exclusivity checks on this state, a thread-local lookup per access on every call,
    // would check nothing.
    @exclusivity(unchecked) private var liveRefs = LiveRefs()
    @exclusivity(unchecked) private var nextGeneration: UInt32 = 1
    private var hostFunctions: [HostFunctionBox] = []
    @exclusivity(unchecked) private var running = false
    @exclusivity(unchecked) private var pendingReleases: [LuaRef] = []

    /// Opens a fresh sandbox. `randomSeed` seeds `math.random` (reproducible per seed).
    public init(limits: LuaLimits = .default, randomSeed: UInt64 = 0) {
        self.limits = limits
        var c = permit_limits(
            instructions_per_call: Int64(max(1, limits.instructionsPerCall)),
            memory_bytes: max(0, limits.memoryBytes),
            max_string: max(0, limits.maxStringBytes),
            trace_cap: max(0, limits.traceCapBytes),
            time_limit_ms: Int64(max(0, limits.timeLimitMilliseconds)),
            max_table_slots: max(0, limits.maxTableSlots),
            max_source: max(0, limits.maxSourceBytes)
        )
        guard let state = permit_open(&c, randomSeed) else {
            fatalError("PermitLua: cannot create a Lua state (out of memory)")
        }
        L = state
        id = UInt64.random(in: 1...UInt64.max)
    }

    deinit {
        permit_close(L)
    }

    // MARK: Loading and calling

    /// Compiles Lua source text into its own environment (globals the chunk sets
    /// stay there; reads fall back to the read-only sandbox). Precompiled chunks
    /// are refused with `.binaryChunkRefused`. Nothing runs yet: call the result.
    public func load(_ source: String, chunkName: String) throws(LuaError) -> LuaRef {
        guard !running else { throw LuaError(kind: .invalidUse, message: "load during a call") }
        // A compile runs in one C call no hook interrupts, in time that grows with the square of
        // the text's length for some shapes: the cap bounds it (docs/security.md).
        let bytes = source.utf8.count
        if limits.maxSourceBytes > 0, bytes > limits.maxSourceBytes {
            throw LuaError(
                kind: .syntax,
                message: "\(chunkName) is \(bytes) bytes; the sandbox compiles at most \(limits.maxSourceBytes) bytes of "
                    + "source (LuaLimits.maxSourceBytes): split the file's data out or shorten it",
                chunkName: chunkName)
        }
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        var source = source
        let status: Int = source.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                ("@" + chunkName).withCString { name in
                    Int(permit_load(L, chars.baseAddress, chars.count, name))
                }
            }
        }
        if status != PERMIT_OK {
            let message = errorText(at: -1)
            let kind: LuaError.Kind =
                switch status {
                case PERMIT_E_SYNTAX: .syntax
                case PERMIT_E_MEMORY: .memoryExhausted
                case PERMIT_E_BINARY: .binaryChunkRefused
                default: .runtime
                }
            let pos = LuaError.position(in: message)
            throw LuaError(kind: kind, message: message, chunkName: pos?.chunk ?? chunkName, line: pos?.line)
        }
        return try makeRef(L, at: -1, typeName: "function")
    }

    /// Calls a function (or a callable stored value) with `args` under the
    /// budgets and returns every result.
    ///
    /// Results are copied without running Lua code. Functions inside results
    /// become `.ref` only with `keepFunctions: true` (release them when done);
    /// otherwise they read as `.other("function")`.
    public func call(_ function: LuaRef, _ args: [LuaValue] = [], keepFunctions: Bool = false) throws(LuaError) -> [LuaValue] {
        try perform(
            function, stackSpace: args.count + 8,
            pushArguments: { () throws(LuaError) -> Int32 in
                try pushValues(L, args)
                return Int32(args.count)
            },
            readResults: { base throws(LuaError) in
                try readResults(above: base, keepFunctions: keepFunctions)
            })
    }

    /// Runs a policy file's main chunk again as a new process of the app would load it
    /// (Restart.c): in a fresh environment, so no global or top-level local of an earlier run
    /// is seen, with `math.random` seeded by `randomSeed` and `tostring`'s object numbers
    /// started over; under the budgets and the memory cap of any call. The table it returns
    /// must have `decide`, and `plan_reminders` exactly when `planReminders` is given: their
    /// new functions replace the old ones behind those refs, which stay valid. On an error the
    /// refs keep the old functions (whose globals are then the failed run's).
    func rerun(_ chunk: LuaRef, randomSeed: UInt64, decide: LuaRef, planReminders: LuaRef?) throws(LuaError) {
        guard !running else { throw LuaError(kind: .invalidUse, message: "restart during a call") }
        try validate(chunk)
        try validate(decide)
        if let planReminders { try validate(planReminders) }
        let top = lua_gettop(L)
        let prepared = Int(permit_fresh_process(L, chunk.slot, randomSeed))
        guard prepared == PERMIT_OK else {
            defer { lua_settop(L, top) }
            throw LuaError(kind: prepared == PERMIT_E_MEMORY ? .memoryExhausted : .runtime, message: errorText(at: -1))
        }
        try perform(
            chunk, stackSpace: 8, pushArguments: { () throws(LuaError) -> Int32 in 0 },
            readResults: { base throws(LuaError) in
                if lua_gettop(L) == base { lua_pushnil(L) }
                let status = Int(permit_adopt_policy(L, base + 1, decide.slot, planReminders?.slot ?? 0))
                guard status == PERMIT_OK else {
                    throw LuaError(kind: status == PERMIT_E_MEMORY ? .memoryExhausted : .runtime, message: errorText(at: -1))
                }
            })
    }

    /// `call` for the warm decision path: `pushArgument` pushes the one argument straight on
    /// the stack (it must push exactly one value), and `readResults` reads the results while
    /// they are still on the stack: `base` is the index below the first result, the stack top
    /// is the last one. Same budgets, guards and stack balance as `call`; the `LuaStack` is
    /// valid only inside the closures.
    func callDirect<T>(
        _ function: LuaRef,
        pushArgument: (LuaStack) throws(LuaError) -> Void,
        readResults: (LuaStack, _ base: Int32) throws(LuaError) -> T
    ) throws(LuaError) -> T {
        let stack = LuaStack(L: L, vm: self)
        return try perform(
            function, stackSpace: 9,
            pushArguments: { () throws(LuaError) -> Int32 in
                try pushArgument(stack)
                return 1
            },
            readResults: { base throws(LuaError) in
                try readResults(stack, base)
            })
    }

    /// The one place a script function is called: the re-entrancy guard, the stack restored to
    /// where it was (success or error), refs released while the call ran freed after it, and the
    /// budgets (in `permit_call`).
    @inline(__always)
    private func perform<T>(
        _ function: LuaRef, stackSpace: Int,
        pushArguments: () throws(LuaError) -> Int32,
        readResults: (_ base: Int32) throws(LuaError) -> T
    ) throws(LuaError) -> T {
        try validate(function)
        guard !running else {
            throw LuaError(kind: .invalidUse, message: "re-entrant call (a host function called back into its VM)")
        }
        running = true
        let base = lua_gettop(L)
        defer {
            // The ctx pushed for this call may have taken its lazy fields' source from the
            // caller's memory, valid only until the caller's call returns (LazyFieldsEncoder).
            permit_lazy_close(L)
            lua_settop(L, base)
            running = false
            if !pendingReleases.isEmpty {
                let refs = pendingReleases
                pendingReleases = []
                for r in refs { release(r) }
            }
        }
        guard lua_checkstack(L, Int32(clamping: stackSpace)) != 0 else {
            throw LuaError(kind: .invalidUse, message: "too many arguments")
        }
        _ = permit_push_ref(L, function.slot)
        let count = try pushArguments()
        let status = Int(permit_call(L, count))
        if status != PERMIT_OK { throw callError(status, function: function) }
        do {
            return try readResults(base)
        } catch  where error.kind == .unsupportedValue {
            throw error.placed(at: definition(of: function))
        }
    }

    /// Where a script function starts: its chunk and the line of its `function` keyword. A value
    /// a function returned that cannot be copied out (too deep, cyclic) has no line of its own
    /// once the call is over; the function that returned it is the nearest place to name.
    private func definition(of function: LuaRef) -> (chunk: String, line: Int)? {
        guard lua_checkstack(L, 2) != 0 else { return nil }
        _ = permit_push_ref(L, function.slot)
        defer { permit_pop(L, 1) }
        let line = Int(permit_line_defined(L, -1))
        guard line > 0 else { return nil }
        permit_push_source(L, -1)
        defer { permit_pop(L, 1) }
        var n = 0
        guard let p = permit_tolstring_raw(L, -1, &n) else { return nil }
        var chunk = String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
        if chunk.hasPrefix("@") || chunk.hasPrefix("=") { chunk.removeFirst() }
        return (chunk, line)
    }

    /// Copies every value above `base` (results of a call), as `call` returns them.
    func readResults(above base: Int32, keepFunctions: Bool = false) throws(LuaError) -> [LuaValue] {
        let top = lua_gettop(L)
        var state = ReadState()
        var results: [LuaValue] = []
        results.reserveCapacity(Int(top - base))
        var i = base + 1
        while i <= top {
            results.append(try read(L, i, keepFunctions: keepFunctions, depth: 0, state: &state))
            i += 1
        }
        return results
    }

    /// The registry slot of a live ref of this VM (what `permit_push_ref` takes).
    func slot(of ref: LuaRef) throws(LuaError) -> Int32 {
        try validate(ref)
        return ref.slot
    }

    /// Keeps a table, function or string in the VM (for values reused on every call, e.g. parts
    /// of a context that do not change). With `readOnly`, tables (nested ones
    /// too) are wrapped in read-only proxies so a script cannot alter what the
    /// next call sees (`pairs`, `next`, `rawget`, `rawlen` and `#` still read them).
    /// Pass it back as `.ref(ref)`.
    /// - strict: a strict ctx table kind (`StrictContext`) the stored table reads as.
    public func store(_ value: LuaValue, readOnly: Bool = true, strict: Int32? = nil) throws(LuaError) -> LuaRef {
        guard !running else { throw LuaError(kind: .invalidUse, message: "store during a call") }
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        guard lua_checkstack(L, 8) != 0 else { throw LuaError(kind: .invalidUse, message: "Lua stack exhausted") }
        try pushValues(L, [value])
        // Before the proxy is made: the proxy reads through to this table, whose metatable then
        // answers for an absent key.
        if let strict, lua_type(L, -1) == LUA_TTABLE { permit_strict_set(L, -1, strict) }
        if readOnly {
            let status = Int(permit_make_readonly(L))
            if status != PERMIT_OK {
                throw LuaError(
                    kind: status == PERMIT_E_MEMORY ? .memoryExhausted : .unsupportedValue,
                    message: "cannot make the value read-only: \(errorText(at: -1))")
            }
        }
        let type = lua_type(L, -1)
        guard type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TSTRING else {
            throw LuaError(kind: .invalidUse, message: "only tables, functions and strings can be stored")
        }
        return try makeRef(L, at: -1, typeName: String(cString: lua_typename(L, type)))
    }

    /// Defines a strict ctx table kind (StrictContext.c) in this VM.
    func defineStrictTable(_ table: StrictContext.Table) throws(LuaError) {
        guard !running else { throw LuaError(kind: .invalidUse, message: "defineStrictTable during a call") }
        // The names one after the other, each ending in NUL.
        let names = table.names.map { $0 + "\u{0}" }.joined()
        let status = names.withCString { list in
            permit_strict_define(L, table.id, table.path, table.hint, list, Int32(table.names.count))
        }
        guard Int(status) == PERMIT_OK else {
            throw LuaError(
                kind: Int(status) == PERMIT_E_MEMORY ? .memoryExhausted : .invalidUse,
                message: "cannot define the strict table \(table.path)")
        }
    }

    /// Makes a Lua function backed by Swift. `body` gets the arguments (tables
    /// copied raw, functions as `.other`) and returns the results; a thrown error
    /// becomes a Lua error at the caller's position (`LuaError.message`, or the
    /// error's description). It must not call back into this VM (that throws
    /// `.invalidUse`). The Swift code never sees a longjmp: the C trampoline raises.
    /// The Swift closure lives as long as the VM (releasing the ref drops only the Lua side).
    public func makeHostFunction(_ body: @escaping ([LuaValue]) throws -> [LuaValue]) throws(LuaError) -> LuaRef {
        guard !running else { throw LuaError(kind: .invalidUse, message: "makeHostFunction during a call") }
        let box = HostFunctionBox(vm: self, body: body)
        hostFunctions.append(box)
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        let status = Int(
            permit_push_host_function(
                L,
                { state, context in
                    guard let state, let context else { return -1 }
                    return Unmanaged<HostFunctionBox>.fromOpaque(context).takeUnretainedValue().invoke(state)
                },
                Unmanaged.passUnretained(box).toOpaque()
            ))
        guard status == PERMIT_OK else {
            throw LuaError(kind: .memoryExhausted, message: "not enough memory to make a host function")
        }
        return try makeRef(L, at: -1, typeName: "function")
    }

    /// Drops a registry reference. Releasing twice, or a foreign ref, is a no-op.
    /// During a call (from a host function) the release happens when the call ends.
    public func release(_ ref: LuaRef) {
        guard ref.owner == id, liveRefs[ref.slot] == ref.generation else { return }
        if running {
            pendingReleases.append(ref)
            return
        }
        liveRefs[ref.slot] = nil
        permit_unref(L, ref.slot)
    }

    /// Releases every `.ref` inside `value` (e.g. a result read with `keepFunctions`).
    public func releaseRefs(in value: LuaValue) {
        switch value {
        case .ref(let r): release(r)
        case .table(let t):
            for e in t.entries {
                releaseRefs(in: e.key)
                releaseRefs(in: e.value)
            }
        default: break
        }
    }

    // MARK: Trace and accounting

    /// Returns and clears what `print` / `permit.log` wrote (one line per call).
    public func drainTrace() -> LuaTrace {
        if permit_trace_is_empty(L) != 0 { return LuaTrace(text: "", truncated: false, droppedBytes: 0) }
        var len = 0
        var truncated: Int32 = 0
        var dropped = 0
        let p = permit_trace(L, &len, &truncated, &dropped)
        let text = p.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: len), as: UTF8.self) } ?? ""
        permit_trace_clear(L)
        return LuaTrace(text: text, truncated: truncated != 0, droppedBytes: dropped)
    }

    /// Bytes currently allocated by the VM.
    public var memoryInUse: Int { permit_memory_used(L) }
    /// Highest `memoryInUse` so far.
    public var peakMemory: Int { permit_memory_peak(L) }
    /// Instructions (and charged C work) used by the last call, to the hook's granularity (1000).
    public var instructionsUsedByLastCall: Int { Int(permit_instructions_used(L)) }
    /// Number of live registry references made by this VM.
    public var liveReferenceCount: Int { liveRefs.count }

    // MARK: Line coverage

    /// Records every line a script runs from now on (for `permit test --coverage`). Costs a
    /// hook call per line, so it is off by default.
    public func recordCoverage(_ on: Bool) {
        permit_set_coverage(L, on ? 1 : 0)
    }

    /// The lines of `chunkName` that ran while coverage was recorded, in order.
    public func coveredLines(chunkName: String) -> [Int] {
        var lines = [Int32](repeating: 0, count: 1 << 16)
        let count = ("@" + chunkName).withCString { permit_covered_lines(L, $0, &lines, Int32(lines.count)) }
        return lines.prefix(Int(count)).map(Int.init)
    }

    /// The line of the `return` that ended the last call (for `return f(x)`, that line), or
    /// `nil` when it raised or coverage is off: which answer of `decide` was given.
    public var lastReturnLine: Int? {
        let line = Int(permit_cov_return_line(L))
        return line > 0 ? line : nil
    }

    /// The first and last line of a Lua function, or `nil` for anything else.
    public func lineSpan(of function: LuaRef) -> ClosedRange<Int>? {
        guard (try? validate(function)) != nil else { return nil }
        var first: Int32 = 0, last: Int32 = 0
        guard permit_function_span(L, function.slot, &first, &last) != 0, first > 0, last >= first else { return nil }
        return Int(first)...Int(last)
    }

    /// The lines with code in the given functions and in every function of the same chunk
    /// reachable from their upvalues (local helpers, tables of helpers). Functions created
    /// only while a call runs (closures inside a function) are not reachable; their lines
    /// count once they run.
    public func executableLines(of functions: [LuaRef], chunkName: String) -> [Int] {
        let slots = functions.filter { (try? validate($0)) != nil }.map(\.slot)
        var lines = [Int32](repeating: 0, count: 1 << 16)
        let count = ("@" + chunkName).withCString { source in
            slots.withUnsafeBufferPointer { refs in
                permit_active_lines(L, refs.baseAddress, Int32(refs.count), source, &lines, Int32(lines.count))
            }
        }
        return lines.prefix(Int(count)).map(Int.init)
    }

    /// Runs a full garbage collection (finalizers cannot exist in the sandbox).
    public func collectGarbage() {
        guard !running else { return }
        permit_collect_garbage(L)
    }

    /// The Lua stack top (0 whenever no call is running).
    var stackTop: Int { Int(lua_gettop(L)) }

    // MARK: Internals

    /// References the value at `index` of `L` (the main state or a coroutine:
    /// the registry is shared, so the ref works from any thread of this VM). Internal, not
    /// private: the tests reference the sandbox's base table through it.
    func makeRef(_ L: OpaquePointer, at index: Int32, typeName: String) throws(LuaError) -> LuaRef {
        guard lua_checkstack(L, 1) != 0 else { throw LuaError(kind: .invalidUse, message: "Lua stack exhausted") }
        lua_pushvalue(L, index)
        let slot = permit_ref(L)
        guard slot != permitNoRef else {
            throw LuaError(kind: .memoryExhausted, message: "not enough memory to keep a reference")
        }
        let generation = nextGeneration
        nextGeneration &+= 1
        if nextGeneration == 0 { nextGeneration = 1 }  // 0 marks a free slot in `liveRefs`
        liveRefs[slot] = generation
        return LuaRef(owner: id, slot: slot, generation: generation, typeName: typeName)
    }

    private func validate(_ ref: LuaRef) throws(LuaError) {
        guard ref.owner == id else { throw LuaError(kind: .invalidUse, message: "reference belongs to another LuaVM") }
        guard liveRefs[ref.slot] == ref.generation else {
            throw LuaError(kind: .invalidUse, message: "reference was released")
        }
    }

    /// Text of the error object at `index`, without running metamethods.
    private func errorText(at index: Int32) -> String {
        permit_push_error_text(L, index)
        defer { permit_pop(L, 1) }
        var len = 0
        guard let p = permit_tolstring_raw(L, -1, &len) else { return "(error)" }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: len), as: UTF8.self)
    }

    private func callError(_ status: Int, function: LuaRef) -> LuaError {
        var message = errorText(at: -1)
        permit_take_traceback(L)
        var traceback: String?
        var len = 0
        if let p = permit_tolstring_raw(L, -1, &len) {
            traceback = String(decoding: UnsafeRawBufferPointer(start: p, count: len), as: UTF8.self)
        }
        permit_pop(L, 1)
        let kind: LuaError.Kind =
            switch status {
            case PERMIT_E_SYNTAX: .syntax
            case PERMIT_E_MEMORY: .memoryExhausted
            case PERMIT_E_BUDGET: .instructionBudgetExceeded
            case PERMIT_E_ERRERR: .errorInErrorHandling
            case PERMIT_E_BINARY: .binaryChunkRefused
            case PERMIT_E_STRING_SIZE: .stringTooLarge
            case PERMIT_E_TIME: .timeLimitExceeded
            case PERMIT_E_NESTING: .nestingTooDeep
            default: .runtime
            }
        // When the budget ran out inside an allocation, Lua reports a memory error.
        if message == "not enough memory" {
            if kind == .memoryExhausted, permit_table_cap_hit(L) != 0 {
                message = "a table grew past \(limits.maxTableSlots) hash slots (LuaLimits.maxTableSlots)"
            }
            if kind == .instructionBudgetExceeded {
                message = "instruction budget of \(limits.instructionsPerCall) exceeded (allocation)"
            } else if kind == .timeLimitExceeded {
                message = "time limit of \(limits.timeLimitMilliseconds) ms exceeded"
            }
        }
        var chunk: String?
        var line: Int?
        if let pos = LuaError.position(in: message) {
            chunk = pos.chunk
            line = pos.line
        } else if let tb = traceback, let pos = firstLuaFrame(in: tb) {
            chunk = pos.chunk
            line = pos.line
        } else {
            _ = permit_push_ref(L, function.slot)
            permit_push_source(L, -1)
            var n = 0
            if let p = permit_tolstring_raw(L, -1, &n) {
                var s = String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
                if s.hasPrefix("@") || s.hasPrefix("=") { s.removeFirst() }
                chunk = s
            }
            permit_pop(L, 2)
        }
        return LuaError(kind: kind, message: message, chunkName: chunk, line: line, traceback: traceback)
    }

    /// The first `chunk:line:` frame of a traceback that is not a C function.
    private func firstLuaFrame(in traceback: String) -> (chunk: String, line: Int)? {
        for raw in traceback.split(separator: "\n").dropFirst() {
            let frame = raw.drop(while: { $0 == "\t" || $0 == " " })
            if frame.hasPrefix("[C]") { continue }
            if let pos = LuaError.position(in: String(frame)) { return pos }
        }
        return nil
    }

    /// The generation of each live ref by registry slot, in an array: `luaL_ref` hands out small
    /// slots and reuses released ones, and every call validates its refs, so this is on the warm
    /// path (a dictionary lookup hashed the slot each time).
    struct LiveRefs {
        private var generations: [UInt32] = []
        /// Slots an array cannot index (never handed out by luaL_ref for a table or function).
        private var others: [Int32: UInt32] = [:]
        private(set) var count = 0

        subscript(slot: Int32) -> UInt32? {
            get {
                guard slot >= 0 else { return others[slot] }
                let index = Int(slot)
                guard index < generations.count, generations[index] != 0 else { return nil }
                return generations[index]
            }
            set {
                let old = self[slot]
                count += (newValue == nil ? 0 : 1) - (old == nil ? 0 : 1)
                guard slot >= 0 else {
                    others[slot] = newValue
                    return
                }
                let index = Int(slot)
                if index >= generations.count {
                    guard newValue != nil else { return }
                    generations.append(contentsOf: repeatElement(0, count: index + 1 - generations.count))
                }
                generations[index] = newValue ?? 0
            }
        }
    }

    /// The state of a `LuaVM` during `callDirect`, for the code that pushes the context and
    /// reads the decision in place (FastPath.swift). Valid only inside those closures.
    struct LuaStack {
        let L: OpaquePointer
        /// Unsafe, not counted: a stack exists only inside a call the VM itself is running, so
        /// the VM outlives it, and a counted `unowned` reference paid a retain and a release
        /// (and a strong retain at each use) on every event.
        unowned(unsafe) let vm: LuaVM

        /// Pushes `value` (built under protection, like every host push).
        func push(_ value: LuaValue) throws(LuaError) { try vm.pushValues(L, [value]) }
    }

    struct ReadState {
        var path: Set<UnsafeRawPointer> = []
        var count = 0
    }

    /// Copies the value at `index` of `L` (the main state or a coroutine).
    /// Uses only API calls that cannot raise or run Lua code.
    fileprivate func read(
        _ L: OpaquePointer, _ index: Int32, keepFunctions: Bool, depth: Int, state: inout ReadState
    ) throws(LuaError) -> LuaValue {
        state.count += 1
        guard state.count <= limits.maxConvertedValues else {
            throw LuaError(kind: .unsupportedValue, message: "more than \(limits.maxConvertedValues) values to convert")
        }
        let idx = lua_absindex(L, index)
        switch lua_type(L, idx) {
        case LUA_TNIL, LUA_TNONE:
            return .nil
        case LUA_TBOOLEAN:
            return .boolean(lua_toboolean(L, idx) != 0)
        case LUA_TNUMBER:
            if permit_is_integer(L, idx) != 0 { return .integer(lua_tointegerx(L, idx, nil)) }
            return .number(lua_tonumberx(L, idx, nil))
        case LUA_TSTRING:
            var len = 0
            let p = permit_tolstring_raw(L, idx, &len)
            return .string(String(decoding: UnsafeRawBufferPointer(start: p, count: len), as: UTF8.self))
        case LUA_TTABLE:
            return try readTable(L, idx, keepFunctions: keepFunctions, depth: depth, state: &state)
        case LUA_TFUNCTION:
            guard keepFunctions else { return .other("function") }
            guard lua_checkstack(L, 2) != 0 else {
                throw LuaError(kind: .unsupportedValue, message: "Lua stack exhausted while reading a function")
            }
            return .ref(try makeRef(L, at: idx, typeName: "function"))
        case let t:
            return .other(String(cString: lua_typename(L, t)))
        }
    }

    private func readTable(
        _ L: OpaquePointer, _ idx: Int32, keepFunctions: Bool, depth: Int, state: inout ReadState
    ) throws(LuaError) -> LuaValue {
        guard depth < limits.maxTableDepth else {
            throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(limits.maxTableDepth) levels")
        }
        guard let identity = lua_topointer(L, idx), !state.path.contains(identity) else {
            throw LuaError(kind: .unsupportedValue, message: "cyclic table")
        }
        guard lua_checkstack(L, 6) != 0 else {
            throw LuaError(kind: .unsupportedValue, message: "Lua stack exhausted while reading a table")
        }
        state.path.insert(identity)
        defer { state.path.remove(identity) }
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        // A ctx read back builds its lazy fields first (LazyContext.c).
        let hasMetatable = permit_settle_then_has_metatable(L, idx) != 0
        let border = Int64(lua_rawlen(L, idx))
        var entries: [(rank: Int, order: Int, entry: LuaTable.Entry)] = []
        lua_pushnil(L)
        while lua_next(L, idx) != 0 {
            let key = try read(L, -2, keepFunctions: keepFunctions, depth: depth + 1, state: &state)
            let value: LuaValue
            do {
                value = try read(L, -1, keepFunctions: keepFunctions, depth: depth + 1, state: &state)
            } catch {
                // The error names the field it is in (`.remember.a.b`), built only on the way out.
                throw error.within(key)
            }
            permit_pop(L, 1)
            let rank: Int =
                switch key {
                case .integer(let i) where i >= 1 && i <= border: 0
                case .integer, .number: 1
                case .string: 2
                case .boolean: 3
                default: 4
                }
            entries.append((rank, entries.count, LuaTable.Entry(key: key, value: value)))
        }
        entries.sort { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            switch (a.entry.key, b.entry.key) {
            case (.integer(let x), .integer(let y)): return x < y
            case (.string(let x), .string(let y)): return x < y
            case (.boolean(let x), .boolean(let y)): return !x && y
            default:
                if let x = a.entry.key.doubleValue, let y = b.entry.key.doubleValue, x != y { return x < y }
                return a.order < b.order
            }
        }
        return .table(LuaTable(entries: entries.map(\.entry), hasMetatable: hasMetatable))
    }

    /// Host values flattened for `permit_push_values` (CLuaShim/Host/HostValues.c): a pre-order list
    /// (a table is followed by its entries, key then value) and the bytes of its strings.
    struct FlatValues {
        var values: [permit_value] = []
        var text: [UInt8] = []
    }

    /// Adds `value` to `flat`, refusing what Lua cannot hold (a nil or NaN key, a foreign or
    /// released ref, tables nested too deeply) before anything reaches the VM.
    fileprivate func flatten(_ value: LuaValue, into flat: inout FlatValues, depth: Int) throws(LuaError) {
        var node = permit_value()
        switch value {
        case .nil:
            node.type = Int32(PERMIT_V_NIL)
        case .boolean(let b):
            node.type = Int32(PERMIT_V_BOOLEAN)
            node.integer = b ? 1 : 0
        case .integer(let i):
            node.type = Int32(PERMIT_V_INTEGER)
            node.integer = i
        case .number(let d):
            node.type = Int32(PERMIT_V_NUMBER)
            node.number = d
        case .string(let s):
            node.type = Int32(PERMIT_V_STRING)
            node.text_offset = flat.text.count
            flat.text.append(contentsOf: s.utf8)
            node.text_length = flat.text.count - node.text_offset
        case .table(let t):
            guard depth < limits.maxTableDepth else {
                throw LuaError(kind: .unsupportedValue, message: "table nested deeper than \(limits.maxTableDepth) levels")
            }
            node.type = Int32(PERMIT_V_TABLE)
            node.integer = Int64(t.entries.count)
            node.array = Int32(clamping: t.entries.prefix { if case .integer = $0.key { true } else { false } }.count)
            flat.values.append(node)
            for entry in t.entries {
                switch entry.key {
                case .nil, .other:
                    throw LuaError(kind: .unsupportedValue, message: "table key of type \(entry.key.typeName)")
                case .number(let d) where d.isNaN:
                    throw LuaError(kind: .unsupportedValue, message: "table key is NaN")
                default: break
                }
                try flatten(entry.key, into: &flat, depth: depth + 1)
                try flatten(entry.value, into: &flat, depth: depth + 1)
            }
            return
        case .ref(let r):
            try validate(r)
            node.type = Int32(PERMIT_V_REF)
            node.integer = Int64(r.slot)
        case .other(let name):
            throw LuaError(kind: .unsupportedValue, message: "cannot pass a \(name) value to Lua")
        }
        flat.values.append(node)
    }

    /// Pushes `values` on `L`. C builds them under protection, so running out of memory is a
    /// typed error, never an abort. The memory cap is off here (host data is trusted).
    fileprivate func pushValues(_ L: OpaquePointer, _ values: [LuaValue]) throws(LuaError) {
        var flat = FlatValues()
        for value in values { try flatten(value, into: &flat, depth: 0) }
        let status = Int(
            flat.withDescription { nodes, count, text, bytes in
                permit_push_values(L, nodes, count, text, bytes, Int32(clamping: values.count))
            })
        switch status {
        case PERMIT_OK: return
        case PERMIT_E_MEMORY: throw LuaError(kind: .memoryExhausted, message: "not enough memory to pass values to Lua")
        default: throw LuaError(kind: .unsupportedValue, message: "Lua stack exhausted while pushing values")
        }
    }

    fileprivate final class HostFunctionBox {
        unowned let vm: LuaVM
        let body: ([LuaValue]) throws -> [LuaValue]

        init(vm: LuaVM, body: @escaping ([LuaValue]) throws -> [LuaValue]) {
            self.vm = vm
            self.body = body
        }

        /// Runs inside the C trampoline: never raises, reports failure by returning -1.
        func invoke(_ L: OpaquePointer) -> Int32 {
            do {
                let n = lua_gettop(L)
                var state = ReadState()
                var args: [LuaValue] = []
                var i: Int32 = 1
                while i <= n {
                    args.append(try vm.read(L, i, keepFunctions: false, depth: 0, state: &state))
                    i += 1
                }
                lua_settop(L, 0)
                let results = try body(args)
                guard lua_checkstack(L, Int32(clamping: results.count + 8)) != 0 else {
                    permit_host_error(L, "too many results from a host function")
                    return -1
                }
                // Staged, not pushed: the trampoline pushes them once this frame is gone.
                var flat = FlatValues()
                for r in results { try vm.flatten(r, into: &flat, depth: 0) }
                let staged = flat.withDescription { nodes, count, text, bytes in
                    permit_host_results(L, nodes, count, text, bytes)
                }
                return staged == 0 ? Int32(results.count) : -1
            } catch let error as LuaError {
                permit_host_error(L, error.message)
            } catch {
                permit_host_error(L, String(describing: error))
            }
            return -1
        }
    }
}

/// `luaL_ref`'s answer when it could not make a reference (LUA_NOREF).
private let permitNoRef: Int32 = -2

extension LuaVM.FlatValues {
    /// Calls `body` with the values and the text as C sees them (the text is never empty, so
    /// its pointer is never NULL).
    mutating func withDescription<R>(
        _ body: (UnsafePointer<permit_value>?, Int, UnsafePointer<CChar>?, Int) -> R
    ) -> R {
        let bytes = text.count
        text.append(0)
        return values.withUnsafeBufferPointer { nodes in
            text.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { chars in
                    body(nodes.baseAddress, nodes.count, chars.baseAddress, bytes)
                }
            }
        }
    }
}
