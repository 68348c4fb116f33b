import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// The warm path (ctx pushed straight on the stack, the decision read in place) against the
/// general path it replaces (a `LuaValue` tree pushed, every result copied, `DecisionReader`):
/// the same ctx, the same decisions, the same errors word for word.
@Suite struct FastPathTests {
    static func policy(_ body: String, limits: LuaLimits = testLimits) throws -> LuaPolicy {
        try LuaPolicy(
            source: """
                return {
                  name = "fast",
                  params = { features = { "diary" }, gap = 2.5, nested = { a = { 1, 2 } } },
                  decide = function(ctx)
                \(body)
                  end,
                }
                """, chunkName: "fast.lua", limits: limits)
    }

    static func context(
        _ event: AppEvent, status: PermissionStatus = .notDetermined, history: Ledger = Ledger(),
        params: [String: PolicyValue] = [:]
    ) -> PolicyContext {
        let version = OSVersion(major: 16, minor: 4)
        return PolicyContext(
            event: event, status: status, previousStatus: .denied, settings: .typical(for: status, on: version),
            platform: Platform(version: version), history: history, params: params, now: 1_767_600_000,
            locale: "zh-Hans", userBucket: 42)
    }

    static var fullLedger: Ledger {
        var ledger = Ledger()
        ledger.firstLaunchAt = 1_767_000_000
        ledger.launches = 4
        ledger.foregrounds = 9
        ledger.lastStatus = .denied
        ledger.statusChangedAt = 1_767_100_000
        ledger.deniedAt = 1_767_100_000
        ledger.legacyRegistered = true
        ledger.promptsToday = 2
        ledger.promptsDay = "2026-01-05"
        ledger.installID = "install"
        ledger.arms = ["first_ask": "quiet", "copy": "b"]
        ledger.softPrompt.shown = 2
        ledger.softPrompt.accepted = 1
        ledger.softPrompt.declined = 1
        ledger.softPrompt.dismissed = 3
        ledger.softPrompt.lastShownAt = 1_767_200_000
        ledger.softPrompt.lastAnsweredAt = 1_767_200_100
        ledger.softPrompt.inlineShown = 7
        ledger.softPrompt.inlineActed = 4
        ledger.softPrompt.links = 8
        ledger.systemPrompt.requested = 1
        ledger.systemPrompt.shown = 1
        ledger.systemPrompt.answeredAt = 1_767_300_000
        ledger.systemPrompt.granted = false
        ledger.settingsPrompt.shown = 1
        ledger.settingsPrompt.opened = 1
        ledger.settingsPrompt.cancelled = 2
        ledger.settingsPrompt.lastShownAt = 1_767_400_000
        ledger.settingsPrompt.inlineShown = 5
        ledger.settingsPrompt.inlineActed = 6
        ledger.settingsPrompt.links = 9
        ledger.inform.shown = 3
        ledger.inform.ok = 1
        ledger.inform.dismissed = 1
        ledger.inform.opened = 2
        ledger.inform.links = 10
        ledger.inform.lastShownAt = 1_767_450_000
        var diary = Ledger.FeatureHistory()
        diary.opened = 3
        diary.lastOpenedAt = 1_767_500_000
        diary.lastPromptAt = 1_767_500_001
        ledger.features = ["diary": diary, "reminders": Ledger.FeatureHistory(), "ä-unicode": diary]
        var lessons = Ledger.EventHistory()
        lessons.count = 2
        lessons.lastAt = 1_767_500_002
        ledger.events = ["lesson_completed": lessons, "streak_opened": Ledger.EventHistory()]
        ledger.state = [
            "asked": .bool(true), "count": .integer(3), "ratio": .number(0.5), "note": .string("hi"),
            "list": .list([.integer(1), .string("two"), .list([])]), "table": .table(["x": .bool(false)]),
        ]
        return ledger
    }

    static let events: [AppEvent] = [
        .appLaunch, .appForeground, .appBackground, .featureOpened("diary"), .softPromptAnswered(.accept),
        .softPromptAnswered(.decline), .softPromptAnswered(.dismiss), .systemPromptAnswered(granted: true),
        .systemPromptAnswered(granted: false), .settingsPromptAnswered(.open), .settingsPromptAnswered(.cancel),
        .settingsPromptAnswered(.dismiss), .softPromptAnswered(.link), .settingsPromptAnswered(.link), .informAnswered(.link),
        .significantTimeChange(timeZone: TimeZone(identifier: "Asia/Tokyo")!),
        .significantTimeChange(timeZone: TimeZone(identifier: "UTC")!), .notificationSettingsOpened, .backgroundRefresh,
        .settingsPromptAnswered(.dismiss), try! .custom("lesson_completed"),
        try! .custom(
            "lesson_completed", properties: ["count": .integer(2), "ratio": .number(0.5), "ok": .bool(true), "title": .string("Verbs")]),
    ]

    @Test func theContextIsTheOneTheGeneralPathBuilds() throws {
        let policy = try Self.policy("return nil")
        var ledgers = [Ledger(), Self.fullLedger]
        var partial = Ledger()
        partial.features = ["one": Ledger.FeatureHistory()]
        partial.state = ["only": .string("x")]
        partial.systemPrompt.granted = true
        partial.arms = ["only": "one"]
        ledgers.append(partial)
        for ledger in ledgers {
            for event in Self.events {
                for status in PermissionStatus.allCases {
                    let context = Self.context(event, status: status, history: ledger, params: ["gap": .number(1)])
                    let (fast, general) = try policy.contextsForTesting(context)
                    #expect(fast == general, "\(event) \(status)")
                    #expect(fast.tableValue?.entries.count == ContextSchema.context.fields.count)
                }
            }
        }
        #expect(policy.stackTopForTesting == 0)
    }

    /// The depth limit holds for `state` on both paths, whether or not the policy reads it: the
    /// warm path checks it when ctx is pushed, before any snapshot is written (it is written
    /// only if the policy reads a lazy field). Tables and lists, at the limit and one under it.
    @Test(arguments: [
        (["deep": PolicyValue.table(["a": .table(["b": .integer(1)])])], true),
        (["deep": PolicyValue.list([.list([.integer(1)])])], true),
        (["deep": PolicyValue.table(["a": .integer(1)])], false),
        (["deep": PolicyValue.list([.integer(1)])], false),
    ])
    func aContextNestedTooDeeplyFailsAlike(state: [String: PolicyValue], tooDeep: Bool) throws {
        let policy = try LuaPolicy(
            source: "return { name = 'deep', decide = function(ctx) return nil end }", chunkName: "deep.lua",
            limits: LuaLimits(timeLimitMilliseconds: 60_000, maxTableDepth: 4))
        var ledger = Ledger()
        ledger.state = state
        let context = Self.context(.appLaunch, history: ledger)
        var errors: [String] = []
        do { _ = try policy.decide(context) } catch { errors.append(error.description) }
        do { _ = try policy.generalDecide(context) } catch { errors.append(error.description) }
        if tooDeep {
            #expect(errors.count == 2)
            #expect(errors.first == errors.last)
            #expect(errors.first?.contains("nested deeper than 4 levels") == true)
        } else {
            #expect(errors.isEmpty, "\(errors)")
        }
        #expect(policy.stackTopForTesting == 0)
    }

    /// Decisions the warm path reads itself (the first `readInPlace`), and others it hands to
    /// the general path.
    static let readInPlace = 16
    static let bodies: [String] = [
        "return nil",
        "return",
        "return { action = 'none' }",
        "return { action = 'none', reason = 'because' }",
        "return { action = 'none', reason = 'x', remember = { a = 1, b = 2.5, c = true, d = 'text', e = permit.forget } }",
        "return { action = 'none', remember = {} }",
        "return { action = 'soft_prompt', title = 'T', message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'soft_prompt', title = { en = 'T', ['中文'] = '标题' }, message = 'M', accept = 'A', decline = 'D' }",
        """
        return { action = 'soft_prompt', title = { en = 'T', ['zh-Hans'] = '标题' }, message = { en = 'M' },
                 accept = 'A', decline = { en = 'D', fr = 'Non' }, presentation = 'sheet', variant = 'b',
                 reason = 'r', remember = { shown = ctx.now } }
        """,
        """
        return { action = 'settings_prompt', title = 'T', message = 'M', open = 'O', cancel = { en = 'C' },
                 deep_link = 'notification_settings', presentation = 'banner' }
        """,
        "return { action = 'settings_prompt', title = 'T', message = 'M', open = 'O', cancel = 'C' }",
        "return { action = 'request_permission' }",
        "return { action = 'request_permission', options = { 'alert', 'provisional', 'alert', 'car_play' } }",
        "return { action = 'request_permission', options = {} }",
        "return { action = 'none', reason = string.rep('x', 2000) }",
        "local d = { action = 'none', reason = 'a metatable' } setmetatable({}, d) return d",
        // Handed to the general path: each is an error there, or a second result.
        "return 42",
        "return 'none'",
        "return {}",
        "return { action = 7 }",
        "return { action = 'nag' }",
        "return { action = 'none', title = 'T' }",
        "return { action = 'none', [1] = 'x' }",
        "return { action = 'none', reason = 5 }",
        "return { action = 'none', reason = string.rep('x', 2001) }",
        "return { action = 'none', remember = { t = {} } }",
        "return { action = 'none', remember = { [1] = 'x' } }",
        "return { action = 'none', remember = { ['\\xff'] = 1, ['\\xfe'] = 2 } }",
        "return { action = 'none', remember = setmetatable({}, {}) }",
        "return { action = 'none', remember = 'x' }",
        "return setmetatable({ action = 'none' }, {})",
        "return setmetatable({ action = 'none' }, { __index = function() error('ran') end })",
        "return { action = 'soft_prompt', title = 'T', message = 'M', accept = 'A' }",
        "return { action = 'soft_prompt', title = {}, message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'soft_prompt', title = { 'x' }, message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'soft_prompt', title = { en = 1 }, message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'soft_prompt', title = { ['\\xff'] = 'a', ['\\xfe'] = 'b' }, message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'soft_prompt', title = setmetatable({ en = 'x' }, {}), message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'soft_prompt', title = 'T', message = 'M', accept = 'A', decline = 'D', presentation = 'popup' }",
        "return { action = 'soft_prompt', title = 'T', message = 'M', accept = 'A', decline = 'D', variant = 3 }",
        "return { action = 'soft_prompt', title = 'T', message = 'M', accept = 'A', decline = 'D', deep_link = 'app_settings' }",
        "return { action = 'settings_prompt', title = 'T', message = 'M', open = 'O', cancel = 'C', deep_link = 'App-Prefs:root' }",
        "return { action = 'settings_prompt', title = 'T', message = 'M', open = 'O', cancel = 'C', deep_link = 5 }",
        "return { action = 'request_permission', options = { 'alert', 'loud' } }",
        "return { action = 'request_permission', options = { 'alert', x = 'sound' } }",
        "return { action = 'request_permission', options = { 'alert', nil, 'sound' } }",
        "return { action = 'request_permission', options = 'alert' }",
        "return { action = 'request_permission', options = { 1 } }",
        "return { action = 'none' }, 5",
        "return nil, { action = 'none' }",
        "local t = { action = 'none' } t.remember = t return t",
        "local t = { en = 'x' } t.self = t return { action = 'soft_prompt', title = t, message = 'M', accept = 'A', decline = 'D' }",
        "return { action = 'none', reason = function() end }",
        "return { action = 'none', remember = { f = print } }",
        "return { action = 'settings_prompt', title = 'T', message = 'M', open = 'O', cancel = 'C', rows = { { name = 'A', value = { en = 'On', de = 'An' } } } }",
        "return { action = 'inform', title = 'T', message = 'M', button = 'OK', rows = { { name = 'A', value = 'On' }, { name = 'B', value = 'Off' } } }",
        "return { action = 'inform', title = 'T', message = 'M', button = 'OK', rows = { { name = 'A' } } }",
        "return { action = 'inform', title = 'T', message = 'M', button = 'OK', row = { action = 'settings_prompt', title = 'R', message = 'S' } }",
        "return { action = 'dismiss', row = { action = 'inform', title = { en = 'On', de = 'An' } } }",
        "return { action = 'none', row = { action = 'inform', title = 'R' } }",
    ]

    static func expectSame(
        _ fast: Result<Decision?, PolicyError>, _ general: Result<Decision?, PolicyError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch (fast, general) {
        case (.success(let a), .success(let b)):
            #expect(a == b, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a == b, sourceLocation: sourceLocation)
            #expect(a.description == b.description, sourceLocation: sourceLocation)
        default:
            Issue.record("fast \(fast) vs general \(general)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: FastPathTests.bodies)
    func decisionsAreTheGeneralPathsWordForWord(body: String) throws {
        let policy = try Self.policy(body)
        let context = Self.context(.featureOpened("diary"))
        let fast = Result { () throws(PolicyError) -> Decision? in try policy.decide(context) }
        let general = Result { () throws(PolicyError) -> Decision? in try policy.generalDecide(context) }
        Self.expectSame(fast, general)
        let index = Self.bodies.firstIndex(of: body)!
        #expect(((try? policy.readsInPlaceForTesting(context)) ?? false) == (index < Self.readInPlace))
        #expect(policy.stackTopForTesting == 0)
    }

    @Test func aLowValueLimitIsHonouredAlike() throws {
        let source = """
            return { name = 'few', decide = function(ctx)
              return { action = 'none', remember = { a = 1, b = 2, c = 3, d = 4 } }
            end }
            """
        for limit in [5, 9, 10, 11, 12, 13, 100] {
            let policy = try LuaPolicy(
                source: source, chunkName: "few.lua", limits: LuaLimits(timeLimitMilliseconds: 60_000, maxConvertedValues: limit))
            let context = Self.context(.appLaunch)
            let fast = Result { () throws(PolicyError) -> Decision? in try policy.decide(context) }
            let general = Result { () throws(PolicyError) -> Decision? in try policy.generalDecide(context) }
            Self.expectSame(fast, general)
            if limit >= 13 { #expect((try? fast.get()) != nil) } else { #expect((try? fast.get()) == nil) }
        }
    }

    @Test func readingRunsNoMetamethod() throws {
        // A decision whose every table has a metatable that would raise if consulted.
        let policy = try Self.policy(
            """
            local trap = { __index = function() error('index ran') end, __pairs = function() error('pairs ran') end,
                           __len = function() error('len ran') end }
            local title = setmetatable({ en = 'T' }, trap)
            return setmetatable({ action = 'soft_prompt', title = title, message = 'M', accept = 'A', decline = 'D' }, trap)
            """)
        do {
            _ = try policy.decide(Self.context(.featureOpened("diary")))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidDecision)
            #expect(error.message.contains("metatables are not accepted"))
        }
    }

    /// One VM serves many devices (a simulation's users): each call's ctx shows its own
    /// device's platform and capabilities, whether its tables are new, kept from an earlier
    /// device or stored again after the VM's cache of them filled up.
    @Test func eachDeviceSeesItsOwnPlatformThroughTheKeptTables() throws {
        let policy = try Self.policy(
            """
                return { action = "none", reason = ctx.platform.version
                  .. " ephemeral=" .. tostring(ctx.capabilities.ephemeral)
                  .. " link=" .. tostring(ctx.capabilities.notification_settings_link) }
            """)
        let versions = (8...18).flatMap { major in [0, 4].map { OSVersion(major: major, minor: $0) } }
        let devices = versions.flatMap { version in [false, true].map { Platform(version: version, isAppClip: $0) } }
        #expect(devices.count > LuaPolicy.platformTablesKept, "enough devices to fill the cache")
        for device in devices + devices.reversed() + devices {
            var context = Self.context(.appLaunch)
            context.platform = device
            context.capabilities = device.capabilities
            let reason = try #require(try policy.decide(context)?.reason)
            let expected =
                "\(device.version) ephemeral=\(device.capabilities.ephemeral)"
                + " link=\(device.capabilities.notificationSettingsLink)"
            #expect(reason == expected)
        }
    }
}
