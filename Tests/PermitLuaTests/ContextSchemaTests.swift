import Foundation
import Testing

@testable import PermitCore
@testable import PermitLua

/// What is not generated from `ContextSchema` agrees with it: the core's enumerations, the ctx
/// a policy really gets on either path, and the editor annotations in `types/permit.lua` (the
/// names the lazy builder and the warm path intern, and the in-place decision reader's codes
/// and tables, are generated from it by `make generate`, Tools/permit-generate).
/// Adding a field means adding it to the schema; each check below then names the place that
/// still lacks it.
@Suite struct ContextSchemaTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func source(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    static func quoted(_ text: String) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func names(_ records: ContextSchema.Record...) -> Set<String> {
        Set(records.flatMap { $0.fields.map(\.name) })
    }

    // MARK: The core's enumerations

    @Test func theEnumerationsAreTheCoresRawValues() {
        #expect(ContextSchema.statuses == PermissionStatus.allCases.map(\.rawValue))
        #expect(ContextSchema.settingValues == SettingValue.allCases.map(\.rawValue))
        #expect(ContextSchema.actions == Decision.Action.names)
        #expect(
            Set(ContextSchema.answers)
                == Set(
                    SoftPromptAnswer.allCases.map(\.rawValue) + SettingsPromptAnswer.allCases.map(\.rawValue)
                        + InformAnswer.allCases.map(\.rawValue)))
        let events: [AppEvent] = [
            .appLaunch, .appForeground, .appBackground, .featureOpened("x"), .featureClosed("x"), .softPromptAnswered(.accept),
            .systemPromptAnswered(granted: true), .settingsPromptAnswered(.open), .informAnswered(.ok),
            .significantTimeChange(timeZone: TimeZone(identifier: "Europe/Berlin")!), .notificationSettingsOpened,
            .backgroundRefresh,
        ]
        #expect(ContextSchema.eventNames == events.map(\.name))
        #expect(Set(ContextSchema.decisionFieldsByAction.keys) == Set(ContextSchema.actions))
        let decisionFields = Set(ContextSchema.commonDecisionFields + ContextSchema.decisionFieldsByAction.values.joined())
        #expect(decisionFields == Self.names(ContextSchema.decision))
    }

    // MARK: Swift

    /// The ctx a policy gets on the warm path, with every optional field set, has exactly the
    /// schema's fields with the schema's types; with a fresh ledger it lacks only optional ones.
    @Test(arguments: [true, false])
    func theContextAPolicyGetsHasTheSchemasShape(full: Bool) throws {
        let policy = try FastPathTests.policy("return nil")
        for event in FastPathTests.events {
            let context = FastPathTests.context(event, history: full ? FastPathTests.fullLedger : Ledger())
            let ctx = try policy.contextsForTesting(context).fast
            var problems: [String] = []
            Self.check(ctx, as: ContextSchema.context.name, at: "ctx", problems: &problems)
            #expect(problems.isEmpty, "\(event): \(problems.joined(separator: "; "))")
        }
    }

    static let readOnly: Set = [ContextSchema.platform.name, ContextSchema.capabilities.name]

    /// The general path's tables (`LuaBridge`, which also fills the read-only platform and
    /// capabilities tables) have the schema's shape too.
    @Test func theGeneralPathsTablesHaveTheSchemasShape() throws {
        var problems: [String] = []
        for version in [OSVersion(major: 9, minor: 3), OSVersion(major: 16, minor: 4, patch: 1)] {
            for clip in [false, true] {
                let platform = Platform(version: version, isAppClip: clip)
                Self.check(LuaBridge.platform(platform), as: ContextSchema.platform.name, at: "platform", problems: &problems)
                Self.check(
                    LuaBridge.capabilities(platform.capabilities), as: ContextSchema.capabilities.name,
                    at: "capabilities", problems: &problems)
            }
        }
        for ledger in [Ledger(), FastPathTests.fullLedger] {
            Self.check(LuaBridge.history(ledger), as: ContextSchema.history.name, at: "history", problems: &problems)
        }
        for event in FastPathTests.events {
            Self.check(LuaBridge.event(event), as: ContextSchema.event.name, at: "event", problems: &problems)
        }
        let version = OSVersion(major: 16, minor: 4)
        for status in PermissionStatus.allCases {
            Self.check(
                LuaBridge.settings(.typical(for: status, on: version)), as: ContextSchema.settings.name,
                at: "settings", problems: &problems)
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }

    /// Checks `value` against a schema type, appending what differs.
    static func check(_ value: LuaValue, as type: String, at path: String, problems: inout [String]) {
        func fail(_ why: String) { problems.append("\(path): \(why)") }
        if type.contains("|"), !type.hasPrefix("\"") {
            // A union (`PermitEventName|string`): any alternative will do.
            let alternatives = type.split(separator: "|").map { alternative in
                var attempt: [String] = []
                check(value, as: String(alternative), at: path, problems: &attempt)
                return attempt
            }
            if !alternatives.contains(where: \.isEmpty) { problems += alternatives.first ?? [] }
            return
        }
        if let record = ContextSchema.records[type] {
            guard case .table(let table) = value else { return fail("expected a table (\(type))") }
            // platform and capabilities are read-only proxies, stored once per VM: their
            // contents are the general path's tables, checked by the next test.
            if readOnly.contains(type), table.hasMetatable, table.entries.isEmpty { return }
            var seen = Set<String>()
            for entry in table.entries {
                guard case .string(let key) = entry.key, let field = record[key] else {
                    fail("\(entry.key) is not a field of \(type) in the schema")
                    continue
                }
                seen.insert(key)
                check(entry.value, as: field.type, at: "\(path).\(key)", problems: &problems)
            }
            for field in record.fields where !field.optional && !seen.contains(field.name) {
                fail("missing \(field.name)")
            }
        } else if type.hasPrefix("table<string, "), type.hasSuffix(">") {
            guard case .table(let table) = value else { return fail("expected a table") }
            let valueType = String(type.dropFirst("table<string, ".count).dropLast())
            for entry in table.entries {
                guard case .string(let key) = entry.key else { return fail("a key is not a string") }
                check(entry.value, as: valueType, at: "\(path)[\(key)]", problems: &problems)
            }
        } else if let names = ContextSchema.aliases[type] ?? (type.hasPrefix("\"") ? quoted(type) : nil) {
            guard case .string(let text) = value, names.contains(text) else { return fail("\(value) is not one of \(names)") }
        } else {
            switch (type, value) {
            case ("integer", .integer), ("boolean", .boolean), ("string", .string), ("any", _), ("PermitScalar", _): break
            default: fail("\(value) is not a \(type)")
            }
        }
    }

    // MARK: types/permit.lua

    /// Each schema record is a `---@class` with the same fields, types and optionality, in
    /// order; each enumeration is an `---@alias` with the same values.
    @Test func theEditorAnnotationsAreTheSchema() throws {
        let (classes, aliases) = try Self.annotations(Self.source("types/permit.lua"))
        for record in ContextSchema.records.values {
            let declared = try #require(classes[record.name], "types/permit.lua has no ---@class \(record.name)")
            let names = declared.map(\.name)
            for field in record.fields where !names.contains(field.name) {
                Issue.record("types/permit.lua: ---@class \(record.name) lacks ---@field \(field.name)")
            }
            for name in names where record[name] == nil {
                Issue.record("types/permit.lua: ---@class \(record.name) has ---@field \(name), which ContextSchema lacks")
            }
            #expect(names == record.fields.map(\.name), "types/permit.lua: the fields of \(record.name), in order")
            for field in record.fields {
                let annotation = declared.first { $0.name == field.name }
                #expect(annotation?.type == field.type, "\(record.name).\(field.name)")
                #expect(annotation?.optional == field.optional, "\(record.name).\(field.name) optional")
            }
        }
        for (alias, values) in ContextSchema.aliases {
            #expect(aliases[alias] == values, "---@alias \(alias)")
        }
    }

    /// The `---@class` fields and `---@alias` string lists of a LuaLS annotation file.
    static func annotations(
        _ text: String
    ) -> (classes: [String: [(name: String, type: String, optional: Bool)]], aliases: [String: [String]]) {
        var classes: [String: [(name: String, type: String, optional: Bool)]] = [:]
        var aliases: [String: [String]] = [:]
        var current: String?
        for line in text.split(separator: "\n").map(String.init) {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            if words.first == "---@class", words.count >= 2 {
                current = words[1]
                classes[words[1], default: []] = []
            } else if words.first == "---@field", words.count == 3, let owner = current {
                let optional = words[1].hasSuffix("?")
                let name = optional ? String(words[1].dropLast()) : words[1]
                let type = words[2].components(separatedBy: " # ")[0].trimmingCharacters(in: .whitespaces)
                classes[owner]?.append((name, type, optional))
            } else if words.first == "---@alias", words.count == 3 {
                aliases[words[1]] = quoted(words[2].components(separatedBy: " # ")[0])
                current = nil
            } else if !line.hasPrefix("---@field") {
                current = nil
            }
        }
        return (classes, aliases)
    }
}
