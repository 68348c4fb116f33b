import PermitCore

/// A policy context as the plain tree of fields a Lua host would build (docs/reference/policy.md#ctx),
/// for the minimal C reference. Permit's own builder lives in PermitLua; this one is written
/// from the contract so the reference does not share Permit's code.
indirect enum ContextTree: Sendable {
    case table([(key: String, value: ContextTree)])
    case integer(Int64)
    case number(Double)
    case string(String)
    case boolean(Bool)
    /// A table a host keeps between calls (platform, capabilities), built once before timing.
    case cached(ContextTree)
    /// The policy's own `params` table, kept by the host.
    case params

    /// The whole ctx of one call; `declaredEvents` read count 0 until they happen.
    init(_ context: PolicyContext, declaredEvents: [String] = []) {
        var event: [(String, ContextTree)] = [("name", .string(context.event.name))]
        for field in context.event.fields { event.append((field.name, ContextTree(field.value))) }
        let settings = NotificationSettings.Setting.allCases.map { ($0.rawValue, ContextTree.string(context.settings[$0].rawValue)) }
        let version = context.platform.version
        let platform: [(String, ContextTree)] = [
            ("os", .string(context.platform.os)), ("version", .string(version.description)),
            ("major", .integer(Int64(version.major))), ("minor", .integer(Int64(version.minor))),
            ("patch", .integer(Int64(version.patch))),
        ]
        let local = context.localTime
        self = .table([
            ("event", .table(event)), ("status", .string(context.status.rawValue)),
            ("previous_status", .string(context.previousStatus.rawValue)), ("settings", .table(settings)),
            ("platform", .cached(.table(platform))),
            ("capabilities", .cached(.table(context.capabilities.namedValues.map { ($0.name, .boolean($0.value)) }))),
            ("history", ContextTree(history: context.history, declaredEvents: declaredEvents)),
            ("state", ContextTree(fields: context.state)),
            ("params", .params), ("now", .integer(context.now)), ("locale", .string(context.locale)),
            (
                "user",
                .table([
                    ("bucket", .integer(Int64(context.userBucket))),
                    ("arms", .table(context.arms.sorted { $0.key < $1.key }.map { ($0.key, ContextTree.string($0.value)) })),
                ])
            ),
            (
                "local_time",
                .table([
                    ("date", .string(local.date)), ("hour", .integer(Int64(local.hour))),
                    ("minute", .integer(Int64(local.minute))), ("weekday", .integer(Int64(local.weekday))),
                    ("timezone", .string(local.timeZone)),
                ])
            ),
        ])
    }

    init(_ value: PolicyValue) {
        switch value {
        case .bool(let flag): self = .boolean(flag)
        case .integer(let number): self = .integer(number)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .list(let items): self = .table(items.enumerated().map { (String($0.offset + 1), ContextTree($0.element)) })
        case .table(let fields): self = ContextTree(fields: fields)
        }
    }

    init(fields: [String: PolicyValue]) {
        self = .table(fields.sorted { $0.key < $1.key }.map { ($0.key, ContextTree($0.value)) })
    }

    /// `ctx.history`; absent times are absent keys.
    init(history ledger: Ledger, declaredEvents: [String] = []) {
        func time(_ seconds: Int64?) -> ContextTree? { seconds.map(ContextTree.integer) }
        func count(_ number: Int) -> ContextTree { .integer(Int64(number)) }
        func table(_ fields: [(String, ContextTree?)]) -> ContextTree {
            .table(fields.compactMap { key, value in value.map { (key, $0) } })
        }
        let soft = ledger.softPrompt, system = ledger.systemPrompt, settings = ledger.settingsPrompt
        let features = ledger.features.sorted { $0.key < $1.key }.map { name, feature in
            (
                name,
                table([
                    ("opened", count(feature.opened)), ("last_opened_at", time(feature.lastOpenedAt)),
                    ("last_prompt_at", time(feature.lastPromptAt)),
                ])
            )
        }
        self = table([
            ("first_launch_at", time(ledger.firstLaunchAt)), ("launches", count(ledger.launches)),
            ("foregrounds", count(ledger.foregrounds)), ("last_status", .string(ledger.lastStatus.rawValue)),
            ("status_changed_at", time(ledger.statusChangedAt)), ("denied_at", time(ledger.deniedAt)),
            ("legacy_registered", .boolean(ledger.legacyRegistered)), ("prompts_today", count(ledger.promptsToday)),
            (
                "soft_prompt",
                table([
                    ("shown", count(soft.shown)), ("accepted", count(soft.accepted)), ("declined", count(soft.declined)),
                    ("dismissed", count(soft.dismissed)), ("last_shown_at", time(soft.lastShownAt)),
                    ("last_answered_at", time(soft.lastAnsweredAt)), ("inline_shown", count(soft.inlineShown)),
                    ("inline_acted", count(soft.inlineActed)),
                ])
            ),
            (
                "system_prompt",
                table([
                    ("requested", count(system.requested)), ("shown", count(system.shown)),
                    ("answered_at", time(system.answeredAt)), ("granted", system.granted.map(ContextTree.boolean)),
                ])
            ),
            (
                "settings_prompt",
                table([
                    ("shown", count(settings.shown)), ("opened", count(settings.opened)),
                    ("cancelled", count(settings.cancelled)), ("last_shown_at", time(settings.lastShownAt)),
                    ("inline_shown", count(settings.inlineShown)), ("inline_acted", count(settings.inlineActed)),
                ])
            ),
            ("features", .table(features)),
            (
                "events",
                .table(
                    ledger.events(including: declaredEvents).sorted { $0.key < $1.key }.map { name, event in
                        (name, table([("count", count(event.count)), ("last_at", time(event.lastAt))]))
                    })
            ),
            ("state", ContextTree(fields: ledger.state)),
        ])
    }

    /// The tree with only what a policy read: a field stays when its path was read or a table
    /// above it was iterated (`path.*`); a table stays when it was read or keeps a field.
    func pruned(to reads: Set<String>, path: String = "") -> ContextTree? {
        let iterated = reads.contains(path.isEmpty ? "*" : path + ".*") || ContextTree.iteratedAbove(path, reads)
        switch self {
        case .table(let fields):
            if iterated { return self }
            let kept = fields.compactMap { key, value -> (key: String, value: ContextTree)? in
                value.pruned(to: reads, path: path.isEmpty ? key : path + "." + key).map { (key, $0) }
            }
            return kept.isEmpty && !path.isEmpty && !reads.contains(path) ? nil : .table(kept)
        case .cached(let inner):
            return inner.pruned(to: reads, path: path).map(ContextTree.cached)
        default:
            return iterated || reads.contains(path) ? self : nil
        }
    }

    private static func iteratedAbove(_ path: String, _ reads: Set<String>) -> Bool {
        var prefix = Substring(path)
        while let dot = prefix.lastIndex(of: ".") {
            prefix = prefix[..<dot]
            if reads.contains(prefix + ".*") { return true }
        }
        return false
    }
}
