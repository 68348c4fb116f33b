import CLuaShim
import CLuaShim.TestHooks
import Testing

@testable import PermitCore
@testable import PermitLua

/// An allocator that fails every growth from the `failFrom`th on (after Lua's emergency
/// collection, Lua retries once: that fails too), wrapped around a VM's own. The state is
/// global because a C allocator cannot capture context; the suite is serialized.
private nonisolated(unsafe) var failFrom = 0
private nonisolated(unsafe) var growths = 0
private nonisolated(unsafe) var wrapped: lua_Alloc?

private let failingAllocator: lua_Alloc = { ud, ptr, osize, nsize in
    let old = ptr == nil ? 0 : osize
    if nsize > old {
        growths += 1
        if failFrom > 0 && growths >= failFrom { return nil }
    }
    return wrapped!(ud, ptr, osize, nsize)
}

/// Makes `vm`'s allocations fail from the `n`th growth on.
private func failAllocations(from n: Int, in vm: LuaVM) {
    var ud: UnsafeMutableRawPointer?
    wrapped = lua_getallocf(vm.L, &ud)
    failFrom = n
    growths = 0
    lua_setallocf(vm.L, failingAllocator, ud)
}

/// Gives `vm` its own allocator back.
private func restoreAllocations(in vm: LuaVM) {
    var ud: UnsafeMutableRawPointer?
    _ = lua_getallocf(vm.L, &ud)
    lua_setallocf(vm.L, wrapped, ud)
    failFrom = 0
}

/// Runs `body` with allocations failing from the `n`th growth on, then restores the VM's own
/// allocator.
private func withAllocationsFailing<R>(from n: Int, in vm: LuaVM, _ body: () throws -> R) rethrows -> R {
    failAllocations(from: n, in: vm)
    defer { restoreAllocations(in: vm) }
    return try body()
}

/// Runs `body` with the first, then the second, ... allocation refused, until it succeeds: each
/// refusal must end as a typed memory error that leaves the VM healthy. Returns how many
/// refusals there were, so a test can check the steps really were hit.
private func refusingEachAllocationInTurn(in vm: LuaVM, _ body: () throws -> Void) -> Int {
    var failures = 0
    for n in 1...10_000 {
        do {
            try withAllocationsFailing(from: n, in: vm, body)
            return failures
        } catch {
            #expect((error as? LuaError)?.kind == .memoryExhausted, "step \(n): \(error)")
            failures += 1
        }
        expectHealthy(vm)
    }
    Issue.record("still failing after 10,000 refused allocations")
    return failures
}

/// The C boundary: what the host pushes runs under protection, recursive C routines check
/// their stack, and a loaded chunk cannot pose as the policy file.
@Suite(.serialized) struct BoundaryTests {
    static let bigValue: LuaValue = .table(
        LuaTable(
            entries: (1...40).map { i in
                LuaTable.Entry(
                    key: .string("key\(i)"),
                    value: .table(
                        LuaTable(entries: [
                            LuaTable.Entry(key: .integer(1), value: .string(String(repeating: "x", count: i * 10))),
                            LuaTable.Entry(key: .integer(2), value: .integer(Int64(i))),
                        ])))
            }))

    /// Every allocation a push makes is made to fail in turn: each ends as a typed error (an
    /// allocation error raised outside a protected call would abort the process), and the VM
    /// serves the next call.
    @Test func storingSurvivesAnAllocationFailureAtEveryStep() throws {
        let vm = LuaVM(limits: testLimits)
        let failures = refusingEachAllocationInTurn(in: vm) {
            let ref = try vm.store(Self.bigValue)
            vm.release(ref)
        }
        #expect(failures > 40)  // one per table at least: the steps really were hit
        let ref = try vm.store(Self.bigValue)
        let f = try vm.load("local t = ... return t.key40[1]:len(), t.key7[2]", chunkName: "read.lua")
        #expect(try vm.call(f, [.ref(ref)]) == [.integer(400), .integer(7)])
    }

    /// Loading (compiling, the chunk's environment, the ref, a binary chunk's refusal) too.
    @Test func loadingSurvivesAnAllocationFailureAtEveryStep() throws {
        let vm = LuaVM(limits: testLimits)
        let source = "local t = {} for i = 1, 10 do t[i] = 'line ' .. i end return function() return #t end"
        let failures = refusingEachAllocationInTurn(in: vm) {
            let f = try vm.load(source, chunkName: "a-rather-long-name/for-a-policy-file/policy.lua")
            vm.release(f)
        }
        #expect(failures > 5)
        for n in 1...20 {
            let e = withAllocationsFailing(from: n, in: vm) { () -> LuaError? in
                do {
                    _ = try vm.load("\u{1B}Lua binary", chunkName: "bin.lua")
                    return nil
                } catch {
                    return error as? LuaError
                }
            }
            #expect(e?.kind == .binaryChunkRefused || e?.kind == .memoryExhausted, "step \(n): \(String(describing: e))")
        }
        expectHealthy(vm)
    }

    @Test func callArgumentsSurviveAnAllocationFailureAtEveryStep() throws {
        let vm = LuaVM(limits: testLimits)
        let f = try vm.load("local t = ... return t.key40[1]:len()", chunkName: "read.lua")
        let failures = refusingEachAllocationInTurn(in: vm) {
            let r = try vm.call(f, [Self.bigValue])
            #expect(r == [.integer(400)])
        }
        #expect(failures > 40)
    }

    /// A host function's results are pushed by the trampoline after the Swift frames are gone,
    /// so a memory error while pushing them unwinds through C only.
    @Test func hostFunctionResultsSurviveAnAllocationFailureAtEveryStep() throws {
        let vm = LuaVM(limits: testLimits)
        let host = try vm.makeHostFunction { _ in [Self.bigValue] }
        let f = try vm.load("local host = ... return host().key40[1]:len()", chunkName: "host.lua")
        let failures = refusingEachAllocationInTurn(in: vm) {
            let r = try vm.call(f, [.ref(host)])
            #expect(r == [.integer(400)])
        }
        #expect(failures > 40)
    }

    /// The warm path's ctx (and its lazy snapshot) is pushed under protection too.
    @Test func aDecisionSurvivesAnAllocationFailureAtEveryStep() throws {
        let policy = try FastPathTests.policy("return { action = 'none', reason = ctx.history.features.diary and 'x' or 'y' }")
        let context = FastPathTests.context(.appLaunch, history: FastPathTests.fullLedger)
        _ = try policy.decide(context)  // warm: the cached tables exist
        var failures = 0
        for n in 1...10_000 {
            policy.withVMForTesting { failAllocations(from: n, in: $0) }
            defer { policy.withVMForTesting { restoreAllocations(in: $0) } }
            do {
                _ = try policy.decide(context)
                break
            } catch {
                #expect(error.message.contains("memory"), "step \(n): \(error)")
                failures += 1
            }
        }
        #expect(failures > 3)
        #expect(try policy.decide(context)?.reason == "x")
        #expect(policy.stackTopForTesting == 0)
    }

    /// Read-only tables are made level by level; 60 levels need more stack than a C function
    /// starts with, so each level checks for room.
    @Test func deepTablesAreMadeReadOnly() throws {
        let vm = LuaVM(limits: LuaLimits(timeLimitMilliseconds: 60_000, maxTableDepth: 100))
        var value = LuaValue.table(LuaTable(entries: [LuaTable.Entry(key: .string("v"), value: .integer(7))]))
        for _ in 1..<60 { value = .table(LuaTable(entries: [LuaTable.Entry(key: .string("x"), value: value)])) }
        let ref = try vm.store(value)
        let f = try vm.load(
            """
            local t = ... for i = 1, 59 do t = t.x end
            local ok = pcall(function() t.v = 8 end)
            return t.v, ok
            """, chunkName: "deep.lua")
        #expect(try vm.call(f, [.ref(ref)]) == [.integer(7), .boolean(false)])
        expectHealthy(vm)
    }

    /// The sandbox's base functions are Lua's own behind a check: they keep Lua's behaviour,
    /// including yielding through xpcall and __pairs, and pairs never hands out Lua's raw next.
    @Test func wrappedBaseFunctionsBehaveAsLuas() throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(
            vm,
            """
            local out = {}
            local function add(...) for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end end
            add(pairs({}) == next)
            local co = coroutine.create(function()
              return xpcall(function() coroutine.yield('y') return 'done' end, function(e) return 'handled ' .. e end)
            end)
            add(coroutine.resume(co))
            add(coroutine.resume(co))
            add(xpcall(function() error('e', 0) end, function(e) return 'handled ' .. e end))
            local t = setmetatable({}, { __pairs = function(t) coroutine.yield('p') return next, { 1 }, nil end })
            local co2 = coroutine.wrap(function() local n = 0 for _ in pairs(t) do n = n + 1 end return n end)
            add(co2(), co2())
            add(getmetatable(''), getmetatable(setmetatable({}, { __metatable = 'locked' })))
            add(pcall(rawset, string, 'x', 1))
            add(load('return 1 +'))
            add(load('return x', 'chunk', 't', { x = 42 })())
            add(load('return print')() == print)
            add(rawget(setmetatable({}, { __index = function() return 1 end }), 'k'))
            return table.concat(out, '|')
            """)
        #expect(
            r.first?.stringValue == "true|true|y|true|true|done|false|handled e|p|1|nil|locked|false|"
                + "attempt to modify a read-only table|nil|[string \"return 1 +\"]:1: unexpected symbol near <eof>|42|true|nil")
    }

    /// The snapshot's counts come from the host; reading it checks them against the userdata's
    /// size first, so a header claiming more than was attached is refused instead of read past
    /// its end. (Without the check, the later bounds checks usually refuse the garbage too; the
    /// read past the userdata itself is what AddressSanitizer reports under `make sanitize`.)
    @Test(arguments: [(2, 100_000, 0), (1_000_000, 0, 0), (2, 0, 1 << 30)])
    func aSnapshotSmallerThanItsCountsIsRefused(nodes: Int, features: Int, text: Int) throws {
        let vm = LuaVM(limits: testLimits)
        let f = try vm.load("local ctx = ... return ctx.history ~= nil", chunkName: "snapshot.lua")
        var failure: LuaError?
        do {
            _ = try vm.callDirect(
                f,
                pushArgument: { stack throws(LuaError) in
                    lua_createtable(stack.L, 0, 8)
                    // Room for state's root node and user.arms' (the smallest valid snapshot's nodes).
                    let size = MemoryLayout<permit_lazy_header>.size + 2 * MemoryLayout<permit_lazy_node>.stride
                    guard let memory = permit_lazy_attach(stack.L, -1, size) else {
                        throw LuaError(kind: .memoryExhausted, message: "attach")
                    }
                    var header = permit_lazy_header()
                    header.state_nodes = UInt32(nodes)
                    header.arms_node = 1
                    header.feature_count = UInt32(features)
                    header.text_bytes = UInt32(text)
                    memory.storeBytes(of: header, as: permit_lazy_header.self)
                }, readResults: { _, _ throws(LuaError) in 0 })
        } catch {
            failure = error
        }
        #expect(failure?.message.contains("damaged ctx snapshot") == true, "\(String(describing: failure))")
        expectHealthy(vm)
    }

    /// A truncated snapshot whose every byte present is valid: one state node (an empty table)
    /// and a header that also claims text the userdata does not hold (its strings cut off).
    /// Building `ctx.state` needs none of the missing bytes, so only the size check at opening
    /// refuses it; without that check the call returns true, and the next field that reads the
    /// text reads past the userdata.
    @Test(arguments: [1, 64, 1 << 20])
    func aTruncatedSnapshotIsRefusedBeforeAnyFieldIsBuilt(text: Int) throws {
        let vm = LuaVM(limits: testLimits)
        let f = try vm.load("local ctx = ... return type(ctx.state) == 'table'", chunkName: "snapshot.lua")
        let keys = try vm.store(.table(LuaTable(entries: [])), readOnly: false)
        defer { vm.release(keys) }
        let keysSlot = try vm.slot(of: keys)
        var failure: LuaError?
        do {
            let result = try vm.callDirect(
                f,
                pushArgument: { stack throws(LuaError) in
                    lua_createtable(stack.L, 0, 8)
                    let headerSize = MemoryLayout<permit_lazy_header>.size
                    guard let memory = permit_lazy_attach(stack.L, -1, headerSize + MemoryLayout<permit_lazy_node>.size) else {
                        throw LuaError(kind: .memoryExhausted, message: "attach")
                    }
                    var header = permit_lazy_header()
                    header.keys_ref = keysSlot
                    header.state_nodes = 1
                    header.text_bytes = UInt32(text)
                    memory.storeBytes(of: header, as: permit_lazy_header.self)
                    var node = permit_lazy_node()
                    node.type = Int32(PERMIT_LAZY_TABLE)
                    memory.storeBytes(of: node, toByteOffset: headerSize, as: permit_lazy_node.self)
                }, readResults: { stack, base throws(LuaError) in lua_toboolean(stack.L, base + 1) != 0 ? 1 : 0 })
            Issue.record("a truncated snapshot was read: \(result)")
        } catch {
            failure = error
        }
        #expect(failure?.message.contains("damaged ctx snapshot") == true, "\(String(describing: failure))")
        expectHealthy(vm)
    }

    /// A chunk name a script gives `load` loses every leading '@' and '=': it shows as
    /// [string "..."], never as a file, so it cannot pose as the policy in errors or coverage.
    @Test(arguments: [
        ("@@polite/policy.lua", #"[string "polite/policy.lua"]:1: boom"#),
        ("@polite/policy.lua", #"[string "polite/policy.lua"]:1: boom"#),
        ("=@polite/policy.lua", #"[string "polite/policy.lua"]:1: boom"#),
        ("@=@=policy.lua", #"[string "policy.lua"]:1: boom"#),
        ("==policy.lua", #"[string "policy.lua"]:1: boom"#),
        ("plain", #"[string "plain"]:1: boom"#),
    ])
    func loadedChunksCannotPoseAsThePolicy(name: String, shown: String) throws {
        let vm = LuaVM(limits: testLimits)
        let r = try run(vm, "local f = load(\"error('boom')\", ...) local ok, e = pcall(f) return e", [.string(name)])
        #expect(r == [.string(shown)])
    }

    @Test func aLoadedChunkAddsNoCoverageToThePolicy() throws {
        let vm = LuaVM(limits: testLimits)
        vm.recordCoverage(true)
        try run(
            vm,
            """
            local f = load("local a = 1\\nlocal b = 2\\nlocal c = 3\\nreturn a", "@@policy.lua")
            return f()
            """, chunk: "policy.lua")
        // The policy's own two lines; the loaded chunk's three lines, were its name taken as
        // "@policy.lua", would show as lines 1 to 3 of the policy.
        #expect(vm.coveredLines(chunkName: "policy.lua") == [1, 2])
    }

    /// A ledger with thousands of features still builds `ctx.history.features` in name order
    /// (a merge sort; the insertion sort it replaces was quadratic in one uncharged C call).
    @Test func manyFeaturesBuildInNameOrder() throws {
        var ledger = Ledger()
        var generator = SplitMix64(seed: 7)
        for i in 0..<3000 {
            ledger.features["f\(generator.next() % 100_000)-\(i)"] = Ledger.FeatureHistory()
        }
        let policy = try FastPathTests.policy(
            """
            local n = 0
            for name in pairs(ctx.history.features) do n = n + 1 end
            return { action = 'none', reason = tostring(n) }
            """, limits: LuaLimits(timeLimitMilliseconds: 10_000))  // 3,000 features, in a debug build
        let decision = try policy.decide(FastPathTests.context(.appLaunch, history: ledger))
        #expect(decision?.reason == "3000")
        let (fast, general) = try policy.contextsForTesting(FastPathTests.context(.appLaunch, history: ledger))
        #expect(fast == general)
    }

    /// Building `ctx.history.features` sorts the ledger's features by name inside one C call; its
    /// comparisons are charged to the budget. A merge sort of n names makes at least n/2 and at
    /// most n comparisons per pass, log2 n passes: the charge (what reading the field adds to
    /// the call) stays within those bounds. Uncharged, only the field's allocations would show
    /// (about 1.5 units per feature, under the lower bound); quadratic, the charge would pass
    /// n²/4, far over the upper one.
    @Test func manyFeaturesAreChargedAsAMergeSort() throws {
        let count = 4096  // the default cap on one table's hash slots
        var ledger = Ledger()
        var generator = SplitMix64(seed: 11)
        for i in 0..<count {
            ledger.features["f\(generator.next() % 1_000_000)-\(i)"] = Ledger.FeatureHistory()
        }
        let context = FastPathTests.context(.appLaunch, history: ledger)
        func instructions(_ read: String) throws -> Int {
            let policy = try FastPathTests.policy("local v = \(read) return { action = 'none' }")
            _ = try policy.decide(context)
            return policy.instructionsUsedByLastCall
        }
        let charge = try instructions("ctx.history.features") - instructions("ctx.history")
        let passes = Int.bitWidth - 1 - count.leadingZeroBitCount  // log2 of a power of two
        #expect(charge >= count / 2 * passes, "\(charge)")
        #expect(charge <= 2 * count * passes, "\(charge)")
    }

    /// The same sort under a budget that cannot pay for it ends with the budget error, naming
    /// what it was building, and leaves the VM usable. (The error is raised from C with the
    /// budget gone: the stack the message handler needs is reserved first, or growing it would
    /// be refused and the error would read as a bare allocation failure.)
    @Test func aBudgetTooSmallForTheFeaturesSortIsTheBudgetError() throws {
        var ledger = Ledger()
        for i in 0..<4096 { ledger.features["feature-\(4096 - i)"] = Ledger.FeatureHistory() }
        var limits = testLimits
        limits.instructionsPerCall = 20_000
        let policy = try FastPathTests.policy(
            "local n = 0 for _ in pairs(ctx.history.features) do n = n + 1 end "
                + "return { action = 'none', reason = tostring(n) }", limits: limits)
        #expect(throws: PolicyError.self) { try policy.decide(FastPathTests.context(.appLaunch, history: ledger)) }
        do {
            _ = try policy.decide(FastPathTests.context(.appLaunch, history: ledger))
        } catch {
            #expect(error.kind == .instructionBudget)
            #expect(error.message.contains("instruction budget of 20000 exceeded (building ctx.history.features)"), "\(error)")
        }
        #expect(try policy.decide(FastPathTests.context(.appLaunch))?.reason == "0")
    }
}

/// The pool of small blocks under a malloc that fails: Lua assumes a shrink always works, so
/// one must never fail nor leak (ASan's leak check sees a leaked block when the pool is off).
@Suite struct SmallPoolTests {
    private static let failingMalloc: @convention(c) (Int) -> UnsafeMutableRawPointer? = { _ in nil }

    /// Just past the pool's largest class, a little further, and far beyond it.
    @Test(arguments: [Int(SMALL_POOL_MAX) + 1, Int(SMALL_POOL_MAX) + 8, Int(SMALL_POOL_MAX) + 88, 4000])
    func aBigBlockShrinksIntoThePoolWithoutMemory(bigSize: Int) throws {
        var pool = small_pool()
        let big = try #require(permit_small_pool_realloc(&pool, nil, 0, bigSize))
        let bytes = big.bindMemory(to: UInt8.self, capacity: bigSize)
        for i in 0..<bigSize { bytes[i] = UInt8(truncatingIfNeeded: i) }
        pool.system_malloc = Self.failingMalloc
        let small = try #require(permit_small_pool_realloc(&pool, big, bigSize, 500))
        let kept = small.bindMemory(to: UInt8.self, capacity: 500)
        #expect((0..<500).allSatisfy { kept[$0] == UInt8(truncatingIfNeeded: $0) })
        // Freed at its new size, then everything goes back to the C library.
        _ = permit_small_pool_realloc(&pool, small, 500, 0)
        #expect(permit_small_pool_realloc(&pool, nil, 0, 100_000) == nil)  // growth still fails
        permit_small_pool_release(&pool)
    }

    @Test func aPooledBlockShrinksToASmallerClassWithoutMemory() throws {
        var pool = small_pool()
        let block = try #require(permit_small_pool_realloc(&pool, nil, 0, 400))
        block.storeBytes(of: 0x1234_5678, as: UInt32.self)
        pool.system_malloc = Self.failingMalloc
        // Use up what is left of the current chunk, so a new block would need a new chunk.
        while permit_small_pool_realloc(&pool, nil, 0, 16) != nil {}
        let shrunk = try #require(permit_small_pool_realloc(&pool, block, 400, 40))
        #expect(shrunk.load(as: UInt32.self) == 0x1234_5678)
        _ = permit_small_pool_realloc(&pool, shrunk, 40, 0)
        permit_small_pool_release(&pool)
    }
}
