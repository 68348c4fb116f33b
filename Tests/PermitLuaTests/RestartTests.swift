import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `LuaPolicy.restart`: the policy starts over on the same VM as a new process of the app would
/// load it, and nothing the previous run kept reaches the new one.
@Suite struct RestartTests {
    static func policy(_ source: String) throws(PolicyError) -> LuaPolicy {
        try LuaPolicy(source: source, chunkName: "restart.lua", limits: testLimits)
    }

    static func reason(_ policy: LuaPolicy, bucket: Int = 1) throws -> String {
        let version = try OSVersion(parsing: "17.5")
        let context = PolicyContext(
            event: .appLaunch, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: bucket)
        return try #require(try policy.decide(context)?.reason)
    }

    @Test func globalsAndTopLevelLocalsStartOver() throws {
        let policy = try Self.policy(
            """
            local calls = 0
            return { name = "counter", decide = function(ctx)
              calls = calls + 1
              total = (total or 0) + 1
              return { action = "none", reason = calls .. " " .. total }
            end }
            """)
        #expect(try Self.reason(policy) == "1 1")
        #expect(try Self.reason(policy) == "2 2")
        try policy.restart(randomSeed: 1)
        #expect(try Self.reason(policy) == "1 1")
        #expect(try Self.reason(policy) == "2 2")
        try policy.restart(randomSeed: 2)
        #expect(try Self.reason(policy) == "1 1")
    }

    @Test func aGlobalSetAfterAnEmptyRunIsGoneAtTheNextRestart() throws {
        // The first runs set no global (their empty environment is kept); a later one does, and
        // the run after it must not see it.
        let policy = try Self.policy(
            """
            return { name = "late-global", decide = function(ctx)
              local before = tostring(flag)
              if ctx.user.bucket == 7 then flag = "set" end
              return { action = "none", reason = before }
            end }
            """)
        #expect(try Self.reason(policy, bucket: 1) == "nil")
        try policy.restart(randomSeed: 1)
        #expect(try Self.reason(policy, bucket: 1) == "nil")
        #expect(try Self.reason(policy, bucket: 7) == "nil")
        #expect(try Self.reason(policy, bucket: 1) == "set")
        try policy.restart(randomSeed: 2)
        #expect(try Self.reason(policy, bucket: 1) == "nil")
    }

    @Test func theSharedTablesHoldNothingARunWrote() throws {
        // Every table a fresh environment shares with the run before: the libraries, the host's
        // stored ctx tables, the string metatable. Writes are refused; nothing reads back.
        let policy = try Self.policy(
            """
            return { name = "leaky", decide = function(ctx)
              local seen, refused = 0, 0
              for _, t in ipairs({ string, table, math, utf8, coroutine, permit, ctx.params, ctx.platform, ctx.capabilities }) do
                if rawget(t, "leak") ~= nil then seen = seen + 1 end
                if not pcall(function() t.leak = true end) then refused = refused + 1 end
                if not pcall(rawset, t, "leak", true) then refused = refused + 1 end
              end
              local ok = pcall(function() ("").leak = true end)
              return { action = "none", reason = seen .. " " .. refused .. " " .. tostring(getmetatable("")) .. " " .. tostring(ok) }
            end }
            """)
        #expect(try Self.reason(policy) == "0 18 nil false")
        try policy.restart(randomSeed: 3)
        #expect(try Self.reason(policy) == "0 18 nil false")
    }

    @Test func mathRandomIsSeededByTheRestartWhateverTheRunBeforeDid() throws {
        let policy = try Self.policy(
            """
            return { name = "dice", decide = function(ctx)
              local draw = math.random(1, 1000000000)
              math.randomseed(1)
              return { action = "none", reason = tostring(draw) }
            end }
            """)
        try policy.restart(randomSeed: 7)
        let first = try Self.reason(policy)
        #expect(try Self.reason(policy) != first)  // the policy's own reseed took effect
        try policy.restart(randomSeed: 7)
        #expect(try Self.reason(policy) == first)
        try policy.restart(randomSeed: 8)
        #expect(try Self.reason(policy) != first)
    }

    @Test func objectNumbersStartOver() throws {
        let policy = try Self.policy(
            """
            local kept = {}
            return { name = "names", decide = function(ctx)
              return { action = "none", reason = tostring(kept) .. " " .. tostring({}) }
            end }
            """)
        #expect(try Self.reason(policy) == "table: #1 table: #2")
        #expect(try Self.reason(policy) == "table: #1 table: #3")
        try policy.restart(randomSeed: 1)
        #expect(try Self.reason(policy) == "table: #1 table: #2")
    }

    @Test func restartsDoNotAccumulateMemory() throws {
        // Each run builds a 64 KiB table: what a run left is garbage, and the refs to decide
        // and plan_reminders are reused, so a thousand restarts hold what one does.
        let policy = try Self.policy(
            """
            local big = {}
            for i = 1, 4096 do big[i] = i end
            return { name = "big", decide = function(ctx) return { action = "none", reason = tostring(#big) } end,
                     plan_reminders = function(ctx) return {} end }
            """)
        try policy.restart(randomSeed: 0)
        policy.runtime.withLock { $0.vm.collectGarbage() }
        let baseline = policy.memoryInUse
        for seed in 1...1_000 { try policy.restart(randomSeed: UInt64(seed)) }
        policy.runtime.withLock { $0.vm.collectGarbage() }
        #expect(policy.memoryInUse < baseline + 16 << 10, "\(policy.memoryInUse) bytes after, \(baseline) before")
        #expect(try Self.reason(policy) == "4096")
    }

    @Test func aRestartRunsUnderTheBudget() throws {
        // The main chunk runs within a call's instruction budget: a file that loops only when its
        // random draw says so (never at the first load's seed) is stopped at a restart.
        let source = """
            if math.random(1, 2) == 2 then while true do end end
            return { name = "loops", decide = function(ctx) return { action = "none", reason = "ok" } end }
            """
        let loaded = (UInt64(0)..<16).lazy.compactMap { seed in
            try? LuaPolicy(source: source, chunkName: "restart.lua", limits: testLimits, randomSeed: seed)
        }.first
        let policy = try #require(loaded, "a seed draws 1")
        var stopped = 0
        for seed in UInt64(1)...8 {
            do {
                try policy.restart(randomSeed: seed)
            } catch {
                #expect(error.kind == .instructionBudget, "\(error)")
                stopped += 1
            }
        }
        #expect(stopped > 0, "some seed draws 2")
    }

    @Test func aFailedRestartLeavesTheProcessWithNoPolicy() throws {
        // The main chunk fails when its random draw says so. The old run's decide keeps what it
        // saw in a top-level local: after a failed restart it must not answer the new process.
        let source = """
            if math.random(1, 2) == 2 then error("this launch cannot load") end
            local seen = {}
            return { name = "kept", decide = function(ctx)
              seen[#seen + 1] = ctx.user.bucket
              return { action = "none", reason = table.concat(seen, ",") }
            end, plan_reminders = function(ctx) return {} end }
            """
        let loaded = (UInt64(0)..<16).lazy.compactMap { seed in
            try? LuaPolicy(source: source, chunkName: "restart.lua", limits: testLimits, randomSeed: seed)
        }.first
        let policy = try #require(loaded, "a seed draws 1")
        #expect(try Self.reason(policy, bucket: 3) == "3")
        // `contains` stops at the first seed whose restart fails: that is the process now.
        let failed = (UInt64(1)...32).contains { seed in (try? policy.restart(randomSeed: seed)) == nil }
        try #require(failed, "a seed draws 2")
        do {
            _ = try Self.reason(policy, bucket: 5)
            Issue.record("a process whose main chunk failed answered with the previous run's decide")
        } catch let error as PolicyError {
            #expect(error.message.contains("this launch cannot load"), "\(error)")
            #expect(error.message.contains("no policy until the next launch"), "\(error)")
        }
        let version = try OSVersion(parsing: "17.5")
        let context = PolicyContext(
            event: .appLaunch, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: 1)
        #expect(throws: PolicyError.self) { try policy.planReminders(context) }
        // A later launch that loads serves again, from a fresh start.
        let loads = (UInt64(33)...64).contains { seed in (try? policy.restart(randomSeed: seed)) != nil }
        try #require(loads, "a seed draws 1")
        #expect(try Self.reason(policy, bucket: 7) == "7")
    }
}
