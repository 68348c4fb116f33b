import Foundation
import PermitScenario
import PermitTestSupport
import Testing

@testable import PermitCore
@testable import PermitLua

/// docs/reference/policy.md's tables of the policy API list exactly what the code builds and accepts:
/// the ctx a policy really sees (walked with `pairs` through the production path), the
/// decision and reminder fields the reader accepts, which of them are required, and the
/// defaults of the optional ones.
@Suite struct ReferencePolicyAPITests {
    let reference: ReferenceTables

    init() throws { reference = try ReferenceTables() }

    // MARK: ctx

    /// Prints the keys of ctx and of each of its tables to the trace, as `table=key key ...`.
    static let probe = """
        local function keys(t)
          local names = {}
          for name in pairs(t) do names[#names + 1] = name end
          table.sort(names)
          return table.concat(names, " ")
        end
        return {
          name = "probe",
          decide = function(ctx)
            print("ctx=" .. keys(ctx))
            print("ctx.event=" .. keys(ctx.event))
            print("ctx.settings=" .. keys(ctx.settings))
            print("ctx.platform=" .. keys(ctx.platform))
            print("ctx.capabilities=" .. keys(ctx.capabilities))
            print("ctx.history=" .. keys(ctx.history))
            print("ctx.history.soft_prompt=" .. keys(ctx.history.soft_prompt))
            print("ctx.history.system_prompt=" .. keys(ctx.history.system_prompt))
            print("ctx.history.settings_prompt=" .. keys(ctx.history.settings_prompt))
            print("ctx.history.inform=" .. keys(ctx.history.inform))
            for _, feature in pairs(ctx.history.features) do print("ctx.history.features=" .. keys(feature)) end
            for _, event in pairs(ctx.history.events) do print("ctx.history.events=" .. keys(event)) end
            print("ctx.user=" .. keys(ctx.user))
            print("ctx.local_time=" .. keys(ctx.local_time))
            print("ctx.app=" .. keys(ctx.app))
            print("permit=" .. keys(permit))
          end,
        }
        """

    static let events: [AppEvent] = [
        .appLaunch, .appForeground, .appBackground, .featureOpened("diary"), .featureClosed("diary"), .softPromptAnswered(.accept),
        .systemPromptAnswered(granted: true), .settingsPromptAnswered(.open), .informAnswered(.ok),
        .significantTimeChange(timeZone: TimeZone(identifier: "Europe/Berlin")!), .notificationSettingsOpened,
        .backgroundRefresh, try! .custom("lesson_completed", properties: ["count": 2]),
    ]

    /// A ledger with every optional field set.
    static var fullLedger: Ledger {
        var ledger = Ledger()
        ledger.firstLaunchAt = 1
        ledger.statusChangedAt = 2
        ledger.deniedAt = 3
        ledger.softPrompt.lastShownAt = 4
        ledger.softPrompt.lastAnsweredAt = 5
        ledger.systemPrompt.answeredAt = 6
        ledger.systemPrompt.granted = true
        ledger.settingsPrompt.lastShownAt = 7
        ledger.inform.lastShownAt = 7
        var feature = Ledger.FeatureHistory()
        feature.opened = 1
        feature.lastOpenedAt = 8
        feature.lastPromptAt = 9
        ledger.features["diary"] = feature
        ledger.state = ["asked_at": .integer(10)]
        var event = Ledger.EventHistory()
        event.count = 1
        event.lastAt = 11
        ledger.events["lesson_completed"] = event
        return ledger
    }

    /// A fresh ledger but for one feature that has only its count.
    static var sparseLedger: Ledger {
        var ledger = Ledger()
        var feature = Ledger.FeatureHistory()
        feature.opened = 1
        ledger.features["diary"] = feature
        ledger.events["lesson_completed"] = Ledger.EventHistory()
        return ledger
    }

    /// The keys the probe saw per table, over the given events and ledger; `app` is the full
    /// one (a version, the one before an update, and a name) unless a sparse one is given.
    static func seenKeys(
        events: [AppEvent], ledger: Ledger, app: AppInfo = AppInfo(version: "2.1", previousVersion: "2.0", name: "Loop")
    ) throws -> [String: Set<String>] {
        let policy = try LuaPolicy(source: probe, chunkName: "probe.lua")
        var seen: [String: Set<String>] = [:]
        for event in events {
            var context = PolicyContext(
                event: event, status: .authorized, previousStatus: .notDetermined,
                settings: .typical(for: .authorized, on: OSVersion(major: 16, minor: 4)),
                platform: Platform(version: OSVersion(major: 16, minor: 4)), history: ledger,
                params: [:], now: 1_767_600_000, locale: "en", userBucket: 42, app: app)
            // An answer to a prompt the policy gave an id carries it.
            if case .informAnswered = event { context.promptID = "safety" }
            let answer = policy.answer(context)
            _ = try answer.decision.get()
            for line in answer.trace.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                let keys = line[line.index(after: equals)...].split(separator: " ").map(String.init)
                seen[String(line[..<equals]), default: []].formUnion(keys)
            }
        }
        return seen
    }

    static let ctxTables = [
        "ctx", "ctx.event", "ctx.settings", "ctx.platform", "ctx.capabilities", "ctx.history",
        "ctx.history.soft_prompt", "ctx.history.system_prompt", "ctx.history.settings_prompt", "ctx.history.inform",
        "ctx.history.features", "ctx.history.events", "ctx.user", "ctx.local_time", "ctx.app",
    ]

    @Test func everyCtxFieldIsDocumentedAndNoOther() throws {
        let seen = try Self.seenKeys(events: Self.events, ledger: Self.fullLedger)
        for table in Self.ctxTables {
            let documented = try reference.keys(table)
            #expect(Set(documented) == seen[table] ?? [], "docs/reference/policy.md <!-- keys: \(table) -->")
            #expect(documented.count == Set(documented).count, "\(table) lists a key twice")
        }
    }

    /// Each ctx table's documented fields are `ContextSchema`'s, the one source every other
    /// spelling comes from; a field missing on either side is named.
    @Test func everyCtxFieldOfTheSchemaIsDocumented() throws {
        let records: [(String, ContextSchema.Record)] = [
            ("ctx", ContextSchema.context), ("ctx.event", ContextSchema.event), ("ctx.settings", ContextSchema.settings),
            ("ctx.platform", ContextSchema.platform), ("ctx.capabilities", ContextSchema.capabilities),
            ("ctx.history", ContextSchema.history), ("ctx.history.soft_prompt", ContextSchema.softPromptHistory),
            ("ctx.history.system_prompt", ContextSchema.systemPromptHistory),
            ("ctx.history.settings_prompt", ContextSchema.settingsPromptHistory),
            ("ctx.history.inform", ContextSchema.informHistory),
            ("ctx.history.features", ContextSchema.featureHistory), ("ctx.history.events", ContextSchema.eventHistory),
            ("ctx.user", ContextSchema.user), ("ctx.local_time", ContextSchema.localTime), ("ctx.app", ContextSchema.app),
        ]
        for (table, record) in records {
            let documented = Set(try reference.keys(table))
            for field in record.fields where !documented.contains(field.name) {
                Issue.record("docs/reference.md <!-- keys: \(table) --> lacks \(field.name), a field of ContextSchema.\(record.name)")
            }
            for name in documented where record[name] == nil {
                Issue.record("docs/reference.md <!-- keys: \(table) --> documents \(name), which ContextSchema.\(record.name) lacks")
            }
        }
    }

    /// A row whose "nil when" column says `never` is there in a fresh ledger; any other row
    /// is absent there (and present in a full one, above).
    @Test func theNilColumnSaysWhichFieldsCanBeAbsent() throws {
        let seen = try Self.seenKeys(events: [.appLaunch], ledger: Self.sparseLedger, app: AppInfo())
        for table in [
            "ctx", "ctx.platform", "ctx.history", "ctx.history.soft_prompt", "ctx.history.system_prompt",
            "ctx.history.settings_prompt", "ctx.history.inform", "ctx.history.features", "ctx.history.events", "ctx.user",
            "ctx.local_time", "ctx.app",
        ] {
            let rows = try reference.rows(table)
            let never = rows.filter { $0.count > 2 && $0[2].hasPrefix("never") }.map { $0[0] }
            #expect(Set(never) == seen[table] ?? [], "the \"nil when\" column of <!-- keys: \(table) -->")
        }
    }

    @Test func settingsAndCapabilitiesMatchTheCore() throws {
        let rows = try reference.rows("ctx.settings")
        #expect(rows.map { $0[0] } == NotificationSettings.names)
        for row in rows {
            let setting = try #require(NotificationSettings.Setting(rawValue: row[0]))
            let since = setting.introducedIn
            #expect(row[1] == (since.minor == 0 ? "\(since.major)" : "\(since.major).\(since.minor)"), "since which iOS \(row[0]) exists")
        }
        let capabilities = Capabilities(version: OSVersion(major: 16)).namedValues.map(\.name)
        #expect(try reference.keys("ctx.capabilities") == capabilities)
    }

    @Test func statusesEventsActionsAndGuardrailsMatchTheCore() throws {
        #expect(try reference.keys("status") == PermissionStatus.allCases.map(\.rawValue))
        #expect(try reference.keys("event") == AppEvent.names)
        #expect(try reference.keys("action") == Decision.Action.names)
        #expect(try reference.keys("guardrail") == Guardrail.allCases.map(\.rawValue))
        #expect(try reference.keys("policy").sorted() == LuaPolicy.policyFields.sorted())
        #expect(try reference.keys("policy.remember_durable") == DurableKeysReader.fields)
    }

    @Test func theHelperTableIsDocumented() throws {
        let seen = try Self.seenKeys(events: [.appLaunch], ledger: Ledger())
        let documented = try reference.keys("permit") + reference.keys("permit.text")
        #expect(Set(documented) == seen["permit"] ?? [], "docs/reference/policy.md#helpers against the sandbox's `permit` table")
        #expect(documented.count == Set(documented).count, "a helper is listed twice")
    }

    // MARK: Decisions

    /// A decision with every field its action accepts.
    static func completeDecision(_ action: String) -> [String: LuaValue] {
        var fields: [String: LuaValue] = [
            "action": .string(action), "reason": "because", "remember": .table(LuaTable(["seen": true])),
            "cancel_reminders": true, "remote_registration": "keep", "cap_exempt": "a safety alert",
            "notify": .table(LuaTable(["body": "Alerts are off"])),
        ]
        switch action {
        case "soft_prompt":
            for field in ["title", "message", "accept", "decline"] { fields[field] = .string(field) }
            fields["presentation"] = "sheet"
            fields["variant"] = "b"
            fields["id"] = "welcome"
            fields["link"] = "More"
            fields["url"] = "https://www.example.com/faq"
        case "request_permission":
            fields["options"] = .table(LuaTable(array: ["alert"]))
        case "settings_prompt":
            for field in ["title", "message", "open", "cancel"] { fields[field] = .string(field) }
            fields["presentation"] = "banner"
            fields["deep_link"] = "notification_settings"
            fields["for_setting"] = "time_sensitive"
            fields["id"] = "off"
            fields["link"] = "More"
            fields["url"] = "https://www.example.com/faq"
            fields["rows"] = Self.rows
        case "open_settings":
            fields["deep_link"] = "notification_settings"
        case "inform":
            for field in ["title", "message", "button", "open"] { fields[field] = .string(field) }
            fields["deep_link"] = "notification_settings"
            fields["presentation"] = "sheet"
            fields["id"] = "safety"
            fields["link"] = "More"
            fields["url"] = "https://www.example.com/faq"
            fields["rows"] = Self.rows
        default:
            break
        }
        fields["row"] = .table(LuaTable(["action": "inform", "title": "Off"]))
        return fields
    }

    /// A status list of one row, `{ { name = "Alerts", value = "On" } }`.
    static var rows: LuaValue { .table(LuaTable(array: [.table(LuaTable(["name": "Alerts", "value": "On"]))])) }

    /// A default as the reference writes it: `"alert"`, `{ "alert", "sound", "badge" }`.
    static func written(_ value: PolicyValue) -> String {
        switch value {
        case .string(let text): "`\"\(text)\"`"
        case .list(let items):
            "`{ "
                + items.map { item in
                    if case .string(let text) = item { return "\"\(text)\"" }
                    return item.description
                }.joined(separator: ", ") + " }`"
        default: "`\(value)`"
        }
    }

    @Test func decisionFieldsTheirActionsRequiredAndDefaults() throws {
        let rows = try reference.rows("decision")
        let allowed = DecisionReader.fieldsByAction.mapValues { Set(DecisionReader.commonFields + $0) }
        #expect(Set(rows.map { $0[0] }) == allowed.values.reduce(Set()) { $0.union($1) })
        for row in rows {
            let field = row[0]
            let actions = row[1] == "any" ? Set(Decision.Action.names) : Set(ReferenceTables.codeSpans(in: row[1]))
            #expect(actions == Set(allowed.filter { $0.value.contains(field) }.keys), "the actions of decision.\(field)")
            // "yes" (for every action of the row), or "for `action`" (only for those named).
            let requiredFor = row[2].hasPrefix("for ") ? Set(ReferenceTables.codeSpans(in: row[2])) : nil
            for action in actions {
                let required = requiredFor.map { $0.contains(action) } ?? row[2].hasPrefix("yes")
                let complete = Self.completeDecision(action)
                #expect(Set(complete.keys) == allowed[action], "the complete \(action) decision")
                var without = complete
                without[field] = nil
                // A page's `deep_link` goes with its `open` button: without the button it is an
                // error of its own (`decision.deep_link`), so both go.
                if action == "inform", field == "open" { without["deep_link"] = nil }
                // A web link's text and page come together (either alone is an error naming the
                // other): optional means both left out.
                if field == "link" || field == "url" {
                    without["link"] = nil
                    without["url"] = nil
                }
                let result = Result { () throws(PolicyError) in try DecisionReader.decision(from: .table(LuaTable(without))) }
                switch result {
                case .failure(let error):
                    #expect(required, "decision.\(field) is documented as optional for \(action), but: \(error)")
                    #expect(error.field == "decision.\(field)")
                case .success(let decision):
                    #expect(!required, "decision.\(field) is documented as required for \(action), but a decision without it is accepted")
                    let fields = DecisionFields.of(try #require(decision))
                    if let value = fields[field], row[3].hasPrefix("`") {
                        #expect(Self.written(value) == row[3], "the default of decision.\(field)")
                    }
                }
            }
        }
    }

    // MARK: Reminders

    /// The documented `plan_reminders` example is read as written.
    @Test func theReminderExampleIsValid() throws {
        let text = try reference.page("policy")
        let start = try #require(text.range(of: "```lua\nplan_reminders = function(ctx)"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let function = String(text[text.index(start.lowerBound, offsetBy: 7)..<end.lowerBound])
        let policy = try LuaPolicy(
            source: "return { name = \"example\", decide = function(ctx) return nil end,\n\(function)}", chunkName: "example.lua")
        let context = PolicyContext(
            event: .appLaunch, status: .authorized, previousStatus: .authorized,
            settings: .typical(for: .authorized, on: OSVersion(major: 16)), platform: Platform(version: OSVersion(major: 16)),
            history: Ledger(), now: 1_767_600_000, locale: "zh-Hans")
        let reminders = try policy.planReminders(context)
        #expect(reminders.map(\.id) == ["checkin-1"])
        #expect(reminders.first?.body.resolved(for: "zh-Hans") == "今天感觉如何？")
    }

    static let completeReminder: [String: LuaValue] = [
        "day": 1, "hour": 8, "minute": 30, "title": "Morning", "body": "Check in", "action": "open_diary",
        "sound": false, "badge": 1, "id": "checkin-1", "interruption_level": "time_sensitive",
    ]

    @Test func reminderFieldsRequiredAndDefaults() throws {
        let rows = try reference.rows("reminder")
        #expect(rows.map { $0[0] } == DecisionReader.reminderFields)
        #expect(Set(Self.completeReminder.keys) == Set(DecisionReader.reminderFields))
        for row in rows {
            var without = Self.completeReminder
            without[row[0]] = nil
            let list = LuaValue.table(LuaTable(array: [.table(LuaTable(without))]))
            let required = row[2].hasPrefix("yes")
            switch Result(catching: { () throws(PolicyError) in try DecisionReader.reminders(from: list) }) {
            case .failure(let error):
                #expect(required, "reminder.\(row[0]) is documented as optional, but: \(error)")
                #expect(error.field == "reminders[1].\(row[0])")
            case .success(let reminders):
                #expect(!required, "reminder.\(row[0]) is documented as required, but a reminder without it is accepted")
                let reminder = try #require(reminders.first)
                let defaults: [String: String] = [
                    "day": "`\(reminder.day)`", "hour": "`\(reminder.hour)`", "minute": "`\(reminder.minute)`",
                    "sound": "`\(reminder.sound)`", "title": reminder.title == nil ? "none" : "?",
                    "action": reminder.action == nil ? "none" : "?", "badge": reminder.badge == nil ? "none" : "?",
                ]
                if let expected = defaults[row[0]] { #expect(row[3] == expected, "the default of reminder.\(row[0])") }
            }
        }
    }
}
