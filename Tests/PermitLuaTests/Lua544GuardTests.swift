import Foundation
import PermitCore
import PermitLuaTestSupport
import Testing

@testable import PermitLua

/// The bugs of Lua 5.4.4 (Debian 12's liblua5.4) a policy can reach, each held by the sandbox.
/// Without the guards these scripts crash the process or misbehave silently.
@Suite struct Lua544GuardTests {
    /// Room for the issue's 20,000 coroutines, so the nesting limit (not memory) is what stops it.
    static let roomy = LuaLimits(instructionsPerCall: 200_000_000, timeLimitMilliseconds: 60_000, memoryBytes: 256 << 20)

    /// The red team's close-chain reproducer with `links` coroutines, read from its fixture
    /// (the battery's own file, so the two cannot drift): a policy whose `decide` builds the chain.
    static func closeChainPolicy(links: Int) throws -> String {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = repository.appendingPathComponent("Tools/permit-redteam/attacks/crash/close-chain.lua")
        return try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "{{LINKS}}", with: String(links))
    }

    static let context: PolicyContext = {
        let version = try! OSVersion(parsing: "16.4")
        return PolicyContext(
            event: .appForeground, status: .notDetermined, previousStatus: .unknown,
            settings: .typical(for: .notDetermined, on: version), platform: Platform(version: version), history: Ledger(),
            params: [:], now: 1_767_600_000, locale: "en", userBucket: 1)
    }()

    @Test func theIssuesCloseChainEndsInATypedErrorThroughLuaPolicy() throws {
        // The close-chain reproducer (20,000 links) through the path `permit run` takes.
        let source = try Self.closeChainPolicy(links: 20_000)
        for limits in [LuaLimits.wideDeadline, Self.roomy] {
            let policy = try LuaPolicy(source: source, chunkName: "crash.lua", limits: limits)
            do {
                _ = try policy.decide(Self.context)
                Issue.record("expected a policy error")
            } catch {
                if limits == Self.roomy {
                    #expect(error.message.contains("nested deeper than 40 levels"), "\(error)")
                } else {
                    // The app's 4 MiB and 50 ms stop 20,000 coroutines first. The chain takes 28-43 ms
                    // of the 50 on an idle machine: with the app's 5 ms margin a loaded one would
                    // see the deadline stop it instead of the VM's own checks.
                    #expect(error.kind == .memory || error.kind == .instructionBudget, "\(error)")
                }
            }
        }
    }

    @Test func aCloseChainIsStoppedByTheNestingLimit() throws {
        let vm = LuaVM(limits: Self.roomy)
        // The policy file's chunk as a function's body, then its decide called.
        let e = failure(vm, "local policy = (function()\n\(try Self.closeChainPolicy(links: 1000))\nend)()\nreturn policy.decide({})")
        #expect(e?.kind == .nestingTooDeep, "\(String(describing: e))")
        #expect(e?.message.contains("coroutine.close") == true)
        expectHealthy(vm)
    }

    @Test func theNestingErrorCannotBeSwallowed() {
        let vm = LuaVM(limits: Self.roomy)
        let e = failure(
            vm,
            """
            local ok = pcall(function() local function f() return coroutine.wrap(f)() end return f() end)
            return "carried on", ok
            """)
        #expect(e?.kind == .nestingTooDeep, "\(String(describing: e))")
        expectHealthy(vm)
    }

    @Test func ordinaryCoroutinesStillWork() throws {
        let vm = LuaVM()
        let r = try run(
            vm,
            """
            local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
            local a, b, c = gen(), gen(), gen()
            local co = coroutine.create(function(x) local y = coroutine.yield(x + 1) return y * 2 end)
            local _, first = coroutine.resume(co, 1)
            local _, second = coroutine.resume(co, 5)
            local idle = coroutine.create(function() coroutine.yield() end)
            coroutine.resume(idle)
            local closed = coroutine.close(idle)
            local ok, err = pcall(coroutine.wrap(function() error("inner", 0) end))
            return a + b + c, first, second, closed, coroutine.status(idle), err
            """)
        #expect(r == [.integer(6), .integer(2), .integer(10), .boolean(true), .string("dead"), .string("inner")])
        // Nesting within the limit is fine.
        let nested = try run(
            vm,
            """
            local function depth(n) if n == 0 then return 0 end return coroutine.wrap(function() return 1 + depth(n - 1) end)() end
            return depth(30)
            """)
        #expect(nested == [.integer(30)])
    }

    @Test func anXpcallHandlerThatOverflowsEndsCleanly() throws {
        // 5.4.4-4: the handler was called again for each error it raised while the stacks were full.
        let vm = LuaVM(limits: Self.roomy)
        let r = try run(
            vm,
            """
            local function loop() return 1 + loop() end
            local ok, err = xpcall(loop, loop)
            return ok, type(err)
            """)
        #expect(r == [.boolean(false), .string("string")])
        let failing = try run(vm, "return xpcall(error, function() error('handler broke') end, 'x')")
        #expect(failing.first == .boolean(false))
        #expect(failing.last.flatMap { if case .string(let s) = $0 { s } else { nil } }?.contains("error in error handling") == true)
        expectHealthy(vm)
    }

    @Test func xpcallKeepsItsContract() throws {
        let vm = LuaVM()
        let r = try run(
            vm,
            """
            local a, b = xpcall(function(x, y) return x + y end, print, 1, 2)
            local c, d = xpcall(function() error({ code = 7 }) end, function(e) return e.code * 6 end)
            return a, b, c, d
            """)
        #expect(r == [.boolean(true), .integer(3), .boolean(false), .integer(42)])
    }

    @Test func utf8CodesRefusesAStrayContinuationByte() throws {
        // 5.4.4-8: utf8.codes skipped continuation bytes after a character without an error.
        let vm = LuaVM()
        let e = failure(vm, "for _ in utf8.codes('a\\x80') do end")
        #expect(e?.kind == .runtime)
        #expect(e?.message.contains("invalid UTF-8") == true, "\(String(describing: e))")
        let r = try run(vm, "local n = 0 for p, c in utf8.codes('añ€') do n = n + c end return n")
        #expect(r == [.integer(97 + 241 + 8364)])
    }

    @Test(.enabled(if: luaBugGuardsActive, "only Lua 5.4.4 and older compile `_ENV <const>` wrongly"))
    func envDeclaredConstIsRefusedBeforeLuaCompilesIt() throws {
        // 5.4.4-2: `_ENV <const>` made the compiler read past a buffer.
        let vm = LuaVM()
        do {
            _ = try vm.load("local x = 1\nlocal _ENV <const> = { y = 2 }\nreturn y", chunkName: "env.lua")
            Issue.record("expected a refusal")
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.line == 2)
            #expect(error.message.contains("_ENV <const>"))
        }
        let viaLoad = try run(vm, "return load('local _ENV <const> = {}')")
        #expect(viaLoad.first == .nil)
        // Look-alikes in strings and comments, and a plain _ENV, still compile.
        let fine = try run(
            vm,
            """
            -- local _ENV <const> = {}
            local s = "local _ENV <const>" --[==[ _ENV <const> ]==]
            local f = load("local _ENV = { v = 5 } return v")
            return #s, f()
            """)
        #expect(fine == [.integer(18), .integer(5)])
    }

    /// Where the linked Lua is fixed (5.4.6 or newer, as the permit-lua package compiles it), the
    /// scan is off: `_ENV <const>` is plain Lua again and means what Lua says.
    @Test(.disabled(if: luaBugGuardsActive, "Lua 5.4.4 and older: the scan refuses `_ENV <const>`"))
    func envDeclaredConstCompilesWhereLuaIsFixed() throws {
        let vm = LuaVM()
        let r = try run(vm, "local x = 1\nlocal _ENV <const> = { y = 2 }\nreturn y")
        #expect(r == [.integer(2)])
        let viaLoad = try run(vm, "return load('local _ENV <const> = { z = 3 } return z')()")
        #expect(viaLoad == [.integer(3)])
    }

    @Test func theLinkedReleaseIsProbedAtRunTime() {
        #expect(luaHeaderRelease / 100 == 504)
        #expect([50404, 50406].contains(luaRuntimeRelease), "\(luaRuntimeRelease)")
        // The probe and the guards agree: where the probe sees 5.4.4, the guards are on.
        #expect(luaBugGuardsActive == (luaRuntimeRelease < 50406))
    }
}
