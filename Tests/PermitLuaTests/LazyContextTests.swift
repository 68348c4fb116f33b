import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// `history`, `settings`, `state` and `user` are built the first time a policy can tell they
/// are missing (LazyContext.c). Every probe below runs on the warm path (lazy) and on the
/// general path (every field present from the start) and must see the same thing. The warm
/// path's tables are also strict (StrictContextTests), which the general path's are not, so
/// the probes read absent keys with rawget and try setmetatable under pcall.
@Suite struct LazyContextTests {
    static let probes: [String] = [
        // Iteration, every way the sandbox offers.
        "local keys = {} for k in pairs(ctx) do keys[#keys + 1] = tostring(k) end table.sort(keys) return { action = 'none', reason = table.concat(keys, ',') }",
        "local keys, k = {}, nil repeat k = next(ctx, k) keys[#keys + 1] = tostring(k) until k == nil table.sort(keys) return { action = 'none', reason = table.concat(keys, ',') }",
        "local iterate = pairs({}) local n = 0 for k, v in iterate, ctx do n = n + 1 end return { action = 'none', reason = tostring(n) }",
        "local n = 0 for k, v in pairs(ctx.history) do n = n + 1 end return { action = 'none', reason = tostring(n) }",
        "local n = 0 for _ in ipairs(ctx) do n = n + 1 end return { action = 'none', reason = n .. ' ' .. #ctx .. ' ' .. rawlen(ctx) }",
        // What bypasses metamethods.
        "return { action = 'none', reason = tostring(not getmetatable(ctx)) }",
        "return { action = 'none', reason = type(rawget(ctx, 'history')) .. type(rawget(ctx, 'settings')) .. type(rawget(ctx, 'state')) .. type(rawget(ctx, 'user')) }",
        "rawset(ctx, 'settings', 5) return { action = 'none', reason = tostring(ctx.settings) .. type(ctx.history) }",
        "pcall(setmetatable, ctx, { __index = function() return 'default' end }) return { action = 'none', reason = type(rawget(ctx, 'history')) .. type(ctx.history) }",
        "return { action = 'none', reason = tostring(rawequal(ctx, ctx)) .. type(ctx) }",
        // Writes before any read.
        "ctx.history = nil return { action = 'none', reason = tostring(ctx.history) .. type(ctx.state) }",
        "ctx.extra = 1 local n = 0 for _ in pairs(ctx) do n = n + 1 end return { action = 'none', reason = tostring(n) }",
        "ctx.user = { bucket = 7 } return { action = 'none', reason = tostring(ctx.user.bucket) }",
        "table.insert(ctx, 'x') return { action = 'none', reason = tostring(ctx[1]) .. type(ctx.history) }",
        // Reads of absent keys, and as an environment.
        "return { action = 'none', reason = tostring(rawget(ctx, 'nothing')) .. tostring(ctx.history.launches) }",
        "return { action = 'none', reason = tostring(load('return history.launches + user.bucket', 'env', 't', ctx)()) }",
        // Every value.
        "local h = ctx.history return { action = 'none', reason = table.concat({ h.launches, h.foregrounds, h.last_status, tostring(h.denied_at), tostring(h.legacy_registered), h.soft_prompt.shown, tostring(h.system_prompt.granted), h.settings_prompt.cancelled, h.features.diary.opened, tostring(h.features.reminders.last_opened_at), h.state.note, ctx.state.list[2], tostring(ctx.state.table.x), ctx.settings.alert, ctx.user.bucket }, ' ') }",
        "return { action = 'none', reason = tostring(ctx.history.state ~= ctx.state) .. tostring(ctx.history == ctx.history) }",
        // Keys made at run time: a lazy key is recognised by its text, however the policy made it.
        "local k = 'hist' .. ('ory'):lower() local h = ctx[k] return { action = 'none', reason = type(h) .. type(h[table.concat({ 'soft', 'prompt' }, '_')]) .. tostring(h[string.format('%s', 'launches')]) }",
        // history's own values, built one by one too: read (present or absent) twice, written
        // before a read, and what raw access sees after.
        "local h = ctx.history local a, b = h.denied_at, h.denied_at h.launches = 99 h.prompts_today = nil return { action = 'none', reason = tostring(a) .. tostring(b) .. h.launches .. tostring(h.prompts_today) .. tostring(rawget(h, 'status_changed_at')) .. tostring(h.legacy_registered) .. h.last_status .. tostring(rawget(h, 'first_launch_at')) }",
        // history's own tables, built one by one.
        "local h = ctx.history local keys, k = {}, nil repeat k = next(h, k) keys[#keys + 1] = tostring(k) until k == nil table.sort(keys) return { action = 'none', reason = table.concat(keys, ',') }",
        "local h = ctx.history return { action = 'none', reason = type(rawget(h, 'features')) .. type(rawget(h, 'soft_prompt')) .. tostring(not getmetatable(h)) }",
        "local h = ctx.history h.soft_prompt = nil h.features = 5 return { action = 'none', reason = tostring(h.soft_prompt) .. tostring(h.features) .. type(h.system_prompt) }",
        "local h = ctx.history local a = h.soft_prompt local n = 0 for _ in pairs(h) do n = n + 1 end return { action = 'none', reason = n .. tostring(a == h.soft_prompt) .. tostring(rawget(h, 'nothing')) }",
        "local h = ctx.history pcall(setmetatable, h, {}) return { action = 'none', reason = type(h.features) .. type(h.settings_prompt) }",
        "return { action = 'none', remember = ctx.history }",
        // The host reading a ctx back.
        "return ctx",
        "return { action = 'none', remember = ctx }",
        "return { action = 'none', remember = ctx.state }",
        "return { action = 'soft_prompt', title = ctx, message = 'M', accept = 'A', decline = 'D' }",
        "error(ctx)",
        "local ok, e = pcall(next, ctx, 'no such key') e = tostring(e) local at = e:find(': ', 1, true) return { action = 'none', reason = tostring(ok) .. ' ' .. (at and e:sub(at + 2) or e) }",
    ]

    static var ledger: Ledger {
        var ledger = FastPathTests.fullLedger
        ledger.features["reminders"] = Ledger.FeatureHistory()
        return ledger
    }

    @Test(arguments: LazyContextTests.probes)
    func aPolicySeesEveryFieldAsIfItWereThere(probe: String) throws {
        let policy = try FastPathTests.policy(probe)
        for context in [
            FastPathTests.context(.featureOpened("diary"), history: Self.ledger),
            FastPathTests.context(.appLaunch, status: .authorized),
        ] {
            let fast = Result { () throws(PolicyError) -> Decision? in try policy.decide(context) }
            let general = Result { () throws(PolicyError) -> Decision? in try policy.generalDecide(context) }
            FastPathTests.expectSame(fast, general)
        }
        #expect(policy.stackTopForTesting == 0)
    }

    @Test func theProbesSeeRealValues() throws {
        let policy = try FastPathTests.policy(Self.probes[0])
        let decision = try policy.decide(FastPathTests.context(.appLaunch))
        #expect(
            decision?.reason
                == "app,capabilities,event,history,local_time,locale,now,params,platform,previous_status,settings,state,status,user")
        let values = try FastPathTests.policy(Self.probes[16]).decide(FastPathTests.context(.featureOpened("diary"), history: Self.ledger))
        // Not determined: iOS reports every setting as not supported before the app has asked.
        #expect(values?.reason == "4 9 denied 1767100000 true 2 false 2 3 nil hi two false not_supported 42")
    }

    /// A ctx kept past its call still shows what was read of it during the call, from its own
    /// event, not a later one's: `history` read then, and the eager fields.
    @Test func aKeptContextKeepsWhatWasReadOfIt() throws {
        let policy = try LuaPolicy(
            source: """
                local kept
                return { name = 'keeper', decide = function(ctx)
                  if kept == nil then kept = ctx local _ = ctx.history.launches return nil end
                  return { action = 'none', reason = kept.history.launches .. ' ' .. ctx.history.launches .. ' ' .. kept.event.name }
                end }
                """, chunkName: "keeper.lua")
        var first = Ledger()
        first.launches = 1
        var second = Ledger()
        second.launches = 2
        #expect(try policy.decide(FastPathTests.context(.appLaunch, history: first)) == nil)
        for _ in 0..<3 {  // allocation between the calls, so a collection can run
            _ = try policy.decide(FastPathTests.context(.appForeground, history: second))
        }
        let decision = try policy.decide(FastPathTests.context(.appBackground, history: second))
        #expect(decision?.reason == "1 2 app_launch")
    }

    /// A lazy field first read after its call has returned is the policy's error, at its line,
    /// naming the field: the host no longer has that event's values to build it from, and a
    /// later event's would be wrong.
    @Test(arguments: [
        ("kept.history.launches", "ctx.history is read after its call returned"),
        ("kept.settings.alert", "ctx.settings is read after its call returned"),
        ("kept.platform.major", "ctx.platform is read after its call returned"),
        ("kept.locale", "ctx.locale is read after its call returned"),
        ("next(kept)", "ctx is iterated after its call returned"),
    ])
    func aFieldFirstReadAfterItsCallIsAnError(read: String, message: String) throws {
        let policy = try LuaPolicy(
            source: """
                local kept
                return { name = 'keeper', decide = function(ctx)
                  if kept == nil then kept = ctx return nil end
                  local _ = \(read)
                  return nil
                end }
                """, chunkName: "keeper.lua")
        #expect(try policy.decide(FastPathTests.context(.appLaunch)) == nil)
        #expect {
            try policy.decide(FastPathTests.context(.appForeground))
        } throws: { error in
            let text = (error as? PolicyError)?.description ?? ""
            return text.hasPrefix("keeper.lua:4: \(message): ") && text.hasSuffix("keep the values you need, not ctx")
        }
    }

    /// A kept `history` (read during its call) builds only the tables read during the call:
    /// `soft_prompt` read then shows its own event's count, `system_prompt` first read later is
    /// the same error as a field of ctx, whichever other field was read.
    @Test func aKeptHistoryKeepsTheTablesReadDuringItsCall() throws {
        let policy = try LuaPolicy(
            source: """
                local kept
                return { name = 'keeper', decide = function(ctx)
                  if kept == nil then kept = ctx.history local _ = kept.soft_prompt.shown return nil end
                  if ctx.event.name == 'app_background' then return { action = 'none', reason = tostring(kept.system_prompt.shown) } end
                  return { action = 'none', reason = kept.soft_prompt.shown .. ' ' .. ctx.history.soft_prompt.shown }
                end }
                """, chunkName: "keeper.lua")
        var first = Ledger()
        first.softPrompt.shown = 1
        var second = Ledger()
        second.softPrompt.shown = 2
        #expect(try policy.decide(FastPathTests.context(.appLaunch, history: first)) == nil)
        for _ in 0..<3 { _ = try policy.decide(FastPathTests.context(.appForeground, history: second)) }
        #expect(try policy.decide(FastPathTests.context(.appForeground, history: second))?.reason == "1 2")
        #expect {
            try policy.decide(FastPathTests.context(.appBackground, history: second))
        } throws: { error in
            ((error as? PolicyError)?.description ?? "").hasPrefix(
                "keeper.lua:4: ctx.history.system_prompt is read after its call returned")
        }
    }

    /// The stored platform, capabilities and locale a kept ctx read during its call are its own
    /// event's, after the host has replaced (and released) them for another device.
    @Test func aKeptContextKeepsItsOwnPlatformAndLocale() throws {
        let policy = try LuaPolicy(
            source: """
                local kept
                local function describe(c)
                  return c.platform.major .. ' ' .. tostring(c.capabilities.provisional) .. ' ' .. c.locale
                end
                return { name = 'keeper', decide = function(ctx)
                  if kept == nil then kept = ctx describe(ctx) return nil end
                  return { action = 'none', reason = describe(kept) .. ' | ' .. describe(ctx) }
                end }
                """, chunkName: "keeper.lua")
        var first = FastPathTests.context(.appLaunch)
        first.platform = Platform(version: OSVersion(major: 11, minor: 0))
        first.capabilities = first.platform.capabilities
        first.locale = "en"
        #expect(try policy.decide(first) == nil)
        var later = FastPathTests.context(.appForeground)
        later.platform = Platform(version: OSVersion(major: 17, minor: 2))
        later.capabilities = later.platform.capabilities
        for _ in 0..<3 { _ = try policy.decide(later) }  // allocation between the calls, so a collection can run
        #expect(try policy.decide(later)?.reason == "11 false en | 17 true zh-Hans")
    }

    /// Writing a field of a kept ctx builds nothing, so it is no error: the value written reads
    /// back, and the fields left alone stay as they were.
    @Test func writingAKeptContextIsNoError() throws {
        let policy = try LuaPolicy(
            source: """
                local kept
                return { name = 'keeper', decide = function(ctx)
                  if kept == nil then kept = ctx return nil end
                  kept.history = { launches = 7 }
                  kept.note = 'mine'
                  return { action = 'none', reason = kept.history.launches .. ' ' .. kept.note .. ' ' .. kept.event.name }
                end }
                """, chunkName: "keeper.lua")
        #expect(try policy.decide(FastPathTests.context(.appLaunch)) == nil)
        #expect(try policy.decide(FastPathTests.context(.appForeground))?.reason == "7 mine app_launch")
    }

    /// A ctx read back by the host after the call (the policy returned a lazy part of it as a
    /// value) is read while the call's source is still open: the same values as the general path.
    @Test func aReturnedPartOfCtxIsReadWithItsOwnValues() throws {
        let policy = try LuaPolicy(
            source: """
                return { name = 'returner', decide = function(ctx)
                  return { action = 'none', reason = 'kept', remember = { copy = ctx.history.soft_prompt } }
                end }
                """, chunkName: "returner.lua")
        var ledger = Ledger()
        ledger.softPrompt.shown = 3
        let context = FastPathTests.context(.appLaunch, history: ledger)
        let fast = Result { () throws(PolicyError) -> Decision? in try policy.decide(context) }
        let general = Result { () throws(PolicyError) -> Decision? in try policy.generalDecide(context) }
        FastPathTests.expectSame(fast, general)
    }

    /// Events whose policy never looks at the lazy fields leave nothing behind.
    @Test func unreadFieldsCostNoMemoryOverTime() throws {
        let policy = try FastPathTests.policy("return nil")
        let context = FastPathTests.context(.appForeground, history: Self.ledger)
        for _ in 0..<2_000 { _ = try policy.decide(context) }
        // Measured after a full collection each time, so what is left is what decisions keep
        // (not garbage waiting for the collector), and the bound can be tight.
        policy.runtime.withLock { $0.vm.collectGarbage() }
        let before = policy.memoryInUse
        for _ in 0..<10_000 { _ = try policy.decide(context) }
        policy.runtime.withLock { $0.vm.collectGarbage() }
        print("unread fields: memory \(before) -> \(policy.memoryInUse) over 10k decisions")
        #expect(policy.memoryInUse < before + 4 * 1024)
    }
}
