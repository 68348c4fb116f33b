import PermitCore

/// Reads what `decide` and `plan_reminders` return, validating every field. Works on values
/// already copied out of the VM, so no policy code (no metamethod) can run while reading.
enum DecisionReader {
    /// The longest text a prompt field or reason may carry, in bytes: the bound a policy
    /// error's message is cut to as well (one number, in PermitCore).
    static let maxTextBytes = TextCap.errorMessageBytes
    static let maxReminders = 256
    /// The longest `id` a prompt, row or page may carry, in bytes: a name to tell prompts
    /// apart (`"denied_alert"`), which every answer carries back, not a text.
    static let maxIDBytes = 64

    // The field names are the schema's (one home for every name a policy meets).
    static let commonFields = ContextSchema.commonDecisionFields
    static let fieldsByAction = ContextSchema.decisionFieldsByAction
    /// Every field each action takes, the common ones first: made once, not per decision.
    static let allowedByAction = fieldsByAction.mapValues { commonFields + $0 }
    static let reminderFields = ContextSchema.reminder.fields.map(\.name)
    /// A `notify`'s fields: a reminder's but its time.
    static let notificationFields = ContextSchema.notification.fields.map(\.name)

    static func invalid(_ field: String, _ message: String) -> PolicyError {
        PolicyError(kind: .invalidDecision, field: field, message: message)
    }

    static func decision(from value: LuaValue) throws(PolicyError) -> Decision? {
        if value.isNil { return nil }
        let table = try record(value, at: "decision", what: "a decision table or nil")
        guard let actionValue = table["action"] else {
            throw invalid("decision.action", "missing; expected one of: \(Decision.Action.names.joined(separator: ", "))")
        }
        guard case .string(let action) = actionValue, let allowed = allowedByAction[action] else {
            let hint =
                actionValue.stringValue.map { Suggestion.hint(for: $0, in: Decision.Action.names) }
                ?? "expected one of: \(Decision.Action.names.joined(separator: ", "))"
            throw invalid("decision.action", "\(describe(actionValue)) is not an action; \(hint)")
        }
        do {
            return try fields(of: table, action: action, allowed: allowed)
        } catch {
            var error = error
            error.action = action
            throw error
        }
    }

    /// The decision of a table whose `action` is valid, every other field validated.
    private static func fields(of table: LuaTable, action: String, allowed: [String]) throws(PolicyError) -> Decision {
        try checkKeys(table, allowed: allowed, at: "decision", context: "a \(action) decision")

        var reason: String?
        if let value = table["reason"] { reason = try text(value, at: "decision.reason") }
        let remember = try table["remember"].map { value throws(PolicyError) in try rememberUpdates(value) } ?? [:]
        var cancelReminders = false
        if let value = table["cancel_reminders"] {
            guard case .boolean(let flag) = value else {
                throw invalid("decision.cancel_reminders", "expected true or false, got \(describe(value))")
            }
            cancelReminders = flag
        }

        var remoteRegistration: RemoteRegistration?
        if let value = table["remote_registration"] {
            let names = RemoteRegistration.allCases.map(\.rawValue)
            guard case .string(let name) = value, let choice = RemoteRegistration(rawValue: name) else {
                throw invalid(
                    "decision.remote_registration",
                    "expected \(names.joined(separator: ", ")) (or leave it out for the default), got \(describe(value))")
            }
            remoteRegistration = choice
        }
        var capExempt: String?
        if let value = table["cap_exempt"] {
            let why = try text(value, at: "decision.cap_exempt")
            guard !why.isEmpty else {
                throw invalid("decision.cap_exempt", "say why this prompt may pass the daily cap (the reason is recorded), got \"\"")
            }
            capExempt = why
        }

        let result = try shown(action, by: table)
        var decision = Decision(result, reason: reason, remember: remember)
        decision.cancelReminders = cancelReminders
        decision.remoteRegistration = remoteRegistration
        decision.capExempt = capExempt
        if let value = table["row"] { decision.row = try row(value, beside: result) }
        if let value = table["notify"] {
            let path = "decision.notify"
            let entry = try record(value, at: path, what: "a notification table like { title = \"...\", body = \"...\" }")
            try checkKeys(entry, allowed: notificationFields, at: path, context: "a notification")
            decision.notify = try notification(entry, at: path, what: "a notification")
        }
        return decision
    }

    /// What a decision of `action` does, its own fields read from `table`.
    private static func shown(_ action: String, by table: LuaTable) throws(PolicyError) -> Decision.Action {
        switch action {
        case "soft_prompt":
            let presentation = try presentation(table)
            return .softPrompt(
                SoftPrompt(
                    title: try localized(table, "title"), message: try localized(table, "message"),
                    accept: try localized(table, "accept"),
                    decline: try button(table, "decline", inline: presentation == .inline),
                    presentation: presentation,
                    variant: try table["variant"].map { value throws(PolicyError) in try text(value, at: "decision.variant") },
                    id: try promptID(table["id"]), link: try webLink(table)))
        case "request_permission":
            return .requestPermission(options: try options(table["options"]))
        case "settings_prompt":
            let presentation = try presentation(table)
            return .settingsPrompt(
                SettingsPrompt(
                    title: try localized(table, "title"), message: try localized(table, "message"),
                    open: try button(table, "open", inline: presentation == .inline),
                    cancel: try button(table, "cancel", inline: presentation == .inline),
                    presentation: presentation, deepLink: try deepLink(table["deep_link"]),
                    forSetting: try setting(table["for_setting"]), id: try promptID(table["id"]),
                    link: try webLink(table), rows: try rows(table["rows"])))
        case "open_settings":
            return .openSettings(try deepLink(table["deep_link"]))
        case "inform":
            return .inform(try informPage(table))
        case "dismiss":
            return .dismiss
        default:
            return .none
        }
    }

    /// The actions a `row` may be: what a screen's inline row shows, or `dismiss` (no row).
    static let rowActions = ["soft_prompt", "settings_prompt", "inform", "dismiss"]

    /// `row`: what becomes of the screen's inline row along with the decision's action: a
    /// table of the fields an inline `soft_prompt`, `settings_prompt` or `inform` takes (its
    /// `presentation` is `inline`, and may be left out), or `{ action = "dismiss" }` to take
    /// the row away. Errors name the row's field (`decision.row.title`).
    static func row(_ value: LuaValue, beside action: Decision.Action) throws(PolicyError) -> Decision.Action {
        let path = "decision.row"
        if action.isInline {
            throw invalid(path, "the decision is a row already, and a screen has one row; return the one to show")
        }
        let table = try record(
            value, at: path, what: "a row like { action = \"settings_prompt\", title = \"...\", message = \"...\" }")
        let names = rowActions.joined(separator: ", ")
        guard let actionValue = table["action"] else { throw invalid("\(path).action", "missing; a row is one of: \(names)") }
        guard case .string(let name) = actionValue, rowActions.contains(name), let fields = fieldsByAction[name] else {
            let hint = actionValue.stringValue.map { Suggestion.hint(for: $0, in: rowActions) } ?? "expected one of: \(names)"
            throw invalid("\(path).action", "\(describe(actionValue)) is not a row; \(hint)")
        }
        try checkKeys(table, allowed: ["action"] + fields, at: path, context: "\(name == "inform" ? "an" : "a") \(name) row")
        if name == "dismiss" { return .dismiss }
        var inline = table
        if let presentation = table["presentation"] {
            guard presentation == .string(Presentation.inline.rawValue) else {
                throw invalid(
                    "\(path).presentation", "a row is inline; leave presentation out, or give \"inline\", got \(describe(presentation))")
            }
        } else {
            inline.entries.append(LuaTable.Entry(key: .string("presentation"), value: .string(Presentation.inline.rawValue)))
        }
        do {
            return try shown(name, by: inline)
        } catch {
            // The readers name a decision's own fields (`decision.title`); these are the row's.
            var error = error
            if let field = error.field, field.hasPrefix("decision.") {
                error.field = path + field.dropFirst("decision".count)
            }
            throw error
        }
    }

    static func reminders(from value: LuaValue) throws(PolicyError) -> [ReminderRequest] {
        if value.isNil { return [] }
        let table = try record(value, at: "reminders", what: "a list of reminders or nil", allowEmpty: true)
        let items = table.sequence
        guard items.count == table.entries.count else {
            throw invalid(
                "reminders", notAList(table, sequenceLength: items.count, what: "reminder list", shape: "a list { {...}, {...} }"))
        }
        guard items.count <= maxReminders else {
            throw invalid("reminders", "\(items.count) reminders is more than \(maxReminders); iOS keeps 64 anyway")
        }
        var result: [ReminderRequest] = []
        // An id names one pending notification: a second reminder with the same id would
        // silently replace the first when scheduled.
        var positionOfID: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let path = "reminders[\(index + 1)]"
            let entry = try record(item, at: path, what: "a reminder table")
            try checkKeys(entry, allowed: reminderFields, at: path, context: "a reminder")
            result.append(
                ReminderRequest(
                    day: try integer(entry["day"], at: "\(path).day", in: 0...3650) ?? 0,
                    hour: try integer(entry["hour"], at: "\(path).hour", in: 0...23) ?? 9,
                    minute: try integer(entry["minute"], at: "\(path).minute", in: 0...59) ?? 0,
                    content: try notification(entry, at: path, what: "a reminder")))
            if let id = result.last?.id {
                if let first = positionOfID[id] {
                    throw invalid(
                        "\(path).id",
                        "\(describe(.string(id))) is already the id of reminders[\(first)]; give each reminder its own id "
                            + "(scheduling a second one with the same id would replace the first)")
                }
                positionOfID[id] = index + 1
            }
        }
        return result
    }

    /// A notification's content: a reminder's fields but its time, and a decision's `notify`,
    /// read by the same rules. `entry`'s keys are already checked.
    static func notification(_ entry: LuaTable, at path: String, what: String) throws(PolicyError) -> NotificationRequest {
        guard let body = entry["body"] else { throw invalid("\(path).body", "missing; \(what) needs a body") }
        return NotificationRequest(
            title: try entry["title"].map { value throws(PolicyError) in try localizedText(value, at: "\(path).title") },
            body: try localizedText(body, at: "\(path).body"),
            action: try entry["action"].map { value throws(PolicyError) in try text(value, at: "\(path).action") },
            sound: try boolean(entry["sound"], at: "\(path).sound") ?? true,
            badge: try integer(entry["badge"], at: "\(path).badge", in: 0...99_999),
            id: try entry["id"].map { value throws(PolicyError) in try text(value, at: "\(path).id") },
            interruptionLevel: try entry["interruption_level"].map { value throws(PolicyError) in
                try interruptionLevel(value, at: "\(path).interruption_level")
            })
    }

    // MARK: Fields

    static func record(_ value: LuaValue, at path: String, what: String, allowEmpty: Bool = true) throws(PolicyError) -> LuaTable {
        guard case .table(let table) = value else { throw invalid(path, "expected \(what), got \(describe(value))") }
        guard !table.hasMetatable else {
            throw invalid(path, "tables with metatables are not accepted here; return a plain table")
        }
        return table
    }

    static func checkKeys(_ table: LuaTable, allowed: [String], at path: String, context: String) throws(PolicyError) {
        for entry in table.entries {
            guard case .string(let key) = entry.key else {
                throw invalid(path, "unexpected \(entry.key.typeName) key \(describe(entry.key)); use field names")
            }
            guard allowed.contains(key) else {
                throw invalid("\(path).\(key)", "not a field of \(context); \(Suggestion.hint(for: key, in: allowed))")
            }
        }
    }

    static func text(_ value: LuaValue, at path: String) throws(PolicyError) -> String {
        guard case .string(let text) = value else { throw invalid(path, "expected a string, got \(describe(value))") }
        guard text.utf8.count <= maxTextBytes else {
            throw invalid(path, "text of \(text.utf8.count) bytes is longer than the \(maxTextBytes) allowed")
        }
        return text
    }

    static func localized(_ table: LuaTable, _ field: String) throws(PolicyError) -> LocalizedText {
        guard let value = table[field] else {
            throw invalid("decision.\(field)", "missing; give a string or a table of translations like { en = \"...\" }")
        }
        return try localizedText(value, at: "decision.\(field)")
    }

    /// A prompt's button that an inline row may go without: `decline` and `cancel` (a row has
    /// no such button) and a settings row's `open` (a row tapped as a whole opens Settings).
    /// Required for a dialog.
    static func button(_ table: LuaTable, _ field: String, inline: Bool) throws(PolicyError) -> LocalizedText? {
        guard table[field] != nil else {
            if inline { return nil }
            throw invalid(
                "decision.\(field)",
                "missing; give a string or a table of translations like { en = \"...\" } (only an inline row, "
                    + "presentation = \"inline\", may go without its \(field) button)")
        }
        return try localized(table, field)
    }

    /// An information page: `title`, `message` and `button` on a page; a row (`presentation =
    /// "inline"`) needs only its `title`, and one without a `button` is a label. `open` (with
    /// an optional `deep_link`) is a second button beside `button` that opens Settings.
    static func informPage(_ table: LuaTable) throws(PolicyError) -> InformPage {
        let presentation = try presentation(table)
        let inline = presentation == .inline
        func optional(_ field: String) throws(PolicyError) -> LocalizedText? {
            guard table[field] != nil else {
                if inline { return nil }
                throw invalid(
                    "decision.\(field)",
                    "missing; an information page needs a title, a message and its one button "
                        + "(only a row, presentation = \"inline\", may leave out \(field); without a button it is a label)")
            }
            return try localized(table, field)
        }
        let title = try localized(table, "title")
        let message = try optional("message")
        let button = try optional("button")
        let settings = try settingsButton(table, beside: button)
        return InformPage(
            title: title, message: message, button: button, open: settings.open, deepLink: settings.deepLink,
            presentation: presentation, id: try promptID(table["id"]), link: try webLink(table, onLabel: button == nil),
            rows: try rows(table["rows"]))
    }

    /// `rows`: a list of `{ name = ..., value = ... }`, each a string or translations (Loop's
    /// Alert Permissions: `{ name = "Time Sensitive", value = "Off" }`), at most
    /// `InfoRow.limit`; absent is none.
    static func rows(_ value: LuaValue?) throws(PolicyError) -> [InfoRow] {
        guard let value else { return [] }
        let table = try record(value, at: "decision.rows", what: "a list of rows like { { name = \"Alerts\", value = \"On\" } }")
        let items = table.sequence
        guard items.count == table.entries.count, !items.isEmpty else {
            throw invalid(
                "decision.rows",
                items.isEmpty && table.entries.isEmpty
                    ? "an empty list; give at least one row, or leave rows out"
                    : notAList(table, sequenceLength: items.count, what: "row list", shape: "a list { {...}, {...} }"))
        }
        guard items.count <= InfoRow.limit else {
            throw invalid("decision.rows", "\(items.count) rows is more than \(InfoRow.limit); a status list, not a table of data")
        }
        var rows: [InfoRow] = []
        for (index, item) in items.enumerated() {
            let path = "decision.rows[\(index + 1)]"
            let row = try record(item, at: path, what: "a row like { name = \"Alerts\", value = \"On\" }")
            try checkKeys(row, allowed: ["name", "value"], at: path, context: "a row")
            func field(_ name: String) throws(PolicyError) -> LocalizedText {
                guard let text = row[name] else {
                    throw invalid("\(path).\(name)", "missing; a row needs a name and a value, like { name = \"Alerts\", value = \"On\" }")
                }
                return try localizedText(text, at: "\(path).\(name)")
            }
            rows.append(InfoRow(name: try field("name"), value: try field("value")))
        }
        return rows
    }

    /// `link` and `url`: a web link, both fields or neither, never on a label (it has nothing
    /// to tap). Every translation of `url` must be a page a link may open (`WebLink.problem`),
    /// so no device language can pick one that is not.
    static func webLink(_ table: LuaTable, onLabel: Bool = false) throws(PolicyError) -> WebLink? {
        let hasText = table["link"] != nil
        let hasAddress = table["url"] != nil
        guard hasText || hasAddress else { return nil }
        guard !onLabel else {
            throw invalid(
                "decision.\(hasText ? "link" : "url")",
                "a label row has nothing to tap; a link goes on a page or on a row with a button, so give a button "
                    + "text too (or leave link and url out)")
        }
        guard hasText else {
            throw invalid(
                "decision.link",
                "missing; a url needs the text the user taps, like link = \"More about notifications\" (or leave url out)")
        }
        guard hasAddress else {
            throw invalid(
                "decision.url",
                "missing; a link needs the address of its web page, like url = \"https://www.example.com/faq\" "
                    + "(or leave link out)")
        }
        let text = try localized(table, "link")
        let address = try localized(table, "url")
        switch address {
        case .plain(let url):
            try checkAddress(url, at: "decision.url")
        case .translations(let urls):
            for (locale, url) in urls { try checkAddress(url, at: "decision.url[\"\(locale)\"]") }
        }
        return WebLink(text: text, address: address)
    }

    /// Refuses an address a link may not open, saying why and what to give instead.
    static func checkAddress(_ url: String, at path: String) throws(PolicyError) {
        if let problem = WebLink.problem(with: url) {
            throw invalid(path, "\(describe(.string(url))) is not a web page a link may open: \(problem)")
        }
    }

    /// A page's `open` button and its `deep_link`: only beside the page's `button` (a label
    /// has nothing to tap), and a `deep_link` only for an `open` button, which alone opens
    /// Settings.
    static func settingsButton(
        _ table: LuaTable, beside button: LocalizedText?
    ) throws(PolicyError) -> (open: LocalizedText?, deepLink: DeepLink) {
        guard table["open"] != nil else {
            guard table["deep_link"] == nil else {
                throw invalid(
                    "decision.deep_link",
                    "only an open button opens Settings; give the page an open text too, or leave deep_link out")
            }
            return (nil, .appSettings)
        }
        guard button != nil else {
            throw invalid(
                "decision.open",
                "a label row has nothing to tap; open goes beside the page's button, so give a button text too "
                    + "(or leave open out)")
        }
        return (try localized(table, "open"), try deepLink(table["deep_link"]))
    }

    /// A prompt's, row's or page's `id`: a short name, at most `maxIDBytes` bytes, not empty.
    static func promptID(_ value: LuaValue?) throws(PolicyError) -> String? {
        guard let value else { return nil }
        guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= maxIDBytes else {
            let got: String
            if case .string(let id) = value {
                got = id.isEmpty ? "\"\"" : "\(id.utf8.count) bytes"
            } else {
                got = describe(value)
            }
            throw invalid(
                "decision.id",
                "expected a short name for the prompt (a string of 1 to \(maxIDBytes) bytes, like \"denied_alert\"), got \(got)")
        }
        return id
    }

    /// A string, or translations keyed by locale: `{ en = "Allow", ["zh-Hans"] = "允许" }`.
    static func localizedText(_ value: LuaValue, at path: String) throws(PolicyError) -> LocalizedText {
        if case .string = value { return .plain(try text(value, at: path)) }
        guard case .table(let table) = value, !table.hasMetatable else {
            throw invalid(path, "expected a string or a table of translations, got \(describe(value))")
        }
        guard !table.entries.isEmpty else { throw invalid(path, "the translation table is empty") }
        var translations: [String: String] = [:]
        for entry in table.entries {
            guard case .string(let locale) = entry.key else {
                throw invalid(path, "translation keys are locales like en or zh-Hans, got \(describe(entry.key))")
            }
            translations[locale] = try text(entry.value, at: "\(path)[\"\(locale)\"]")
        }
        return .translations(translations)
    }

    static func presentation(_ table: LuaTable) throws(PolicyError) -> Presentation {
        guard let value = table["presentation"] else { return .alert }
        let names = Presentation.allCases.map(\.rawValue)
        guard case .string(let name) = value, let presentation = Presentation(rawValue: name) else {
            throw invalid("decision.presentation", "expected \(names.joined(separator: ", ")), got \(describe(value))")
        }
        return presentation
    }

    /// A reminder's `interruption_level`: passive, active, time_sensitive or critical.
    static func interruptionLevel(_ value: LuaValue, at path: String) throws(PolicyError) -> InterruptionLevel {
        if case .string(let name) = value, let level = InterruptionLevel(rawValue: name) { return level }
        let names = InterruptionLevel.allCases.map(\.rawValue)
        throw invalid(path, "expected \(names.joined(separator: ", ")), got \(describe(value))")
    }

    static func deepLink(_ value: LuaValue?) throws(PolicyError) -> DeepLink {
        guard let value else { return .appSettings }
        if case .string(let name) = value, let link = DeepLink(rawValue: name) { return link }
        var message = "expected app_settings or notification_settings, got \(describe(value))"
        if let text = value.stringValue, text.lowercased().hasPrefix("app-prefs:") || text.lowercased().hasPrefix("prefs:") {
            message += " (App-Prefs: and prefs:root= URLs are private API and get an app rejected from the App Store)"
        }
        throw invalid("decision.deep_link", message)
    }

    /// A settings prompt's `for_setting`: a `ctx.settings` name, or `nil` when absent.
    static func setting(_ value: LuaValue?) throws(PolicyError) -> NotificationSettings.Setting? {
        guard let value else { return nil }
        if case .string(let name) = value, let setting = NotificationSettings.Setting(rawValue: name) { return setting }
        let names = NotificationSettings.Setting.allCases.map(\.rawValue)
        let hint = value.stringValue.map { Suggestion.hint(for: $0, in: names) } ?? "expected one of: \(names.joined(separator: ", "))"
        throw invalid("decision.for_setting", "\(describe(value)) is not a setting of ctx.settings; \(hint)")
    }

    static func options(_ value: LuaValue?) throws(PolicyError) -> [AuthorizationOption] {
        guard let value else { return [.alert, .sound, .badge] }
        guard case .table(let table) = value, !table.hasMetatable else {
            throw invalid("decision.options", "expected a list like { \"alert\", \"sound\" }, got \(describe(value))")
        }
        let items = table.sequence
        guard items.count == table.entries.count else {
            throw invalid(
                "decision.options",
                notAList(table, sequenceLength: items.count, what: "options list", shape: "a list like { \"alert\", \"sound\" }"))
        }
        let names = AuthorizationOption.allCases.map(\.rawValue)
        var options: [AuthorizationOption] = []
        for (index, item) in items.enumerated() {
            guard case .string(let name) = item, let option = AuthorizationOption(rawValue: name) else {
                let hint =
                    item.stringValue.map { Suggestion.hint(for: $0, in: names) } ?? "expected one of: \(names.joined(separator: ", "))"
                throw invalid("decision.options[\(index + 1)]", "\(describe(item)) is not an option; \(hint)")
            }
            if !options.contains(option) { options.append(option) }
        }
        return options
    }

    /// `remember = { key = value }`: scalars only; `permit.forget` deletes a key (a Lua table
    /// cannot hold nil, so deletion needs a marker).
    static func rememberUpdates(_ value: LuaValue) throws(PolicyError) -> [String: PolicyValue?] {
        let table = try record(value, at: "decision.remember", what: "a table of values to remember")
        var updates: [String: PolicyValue?] = [:]
        for entry in table.entries {
            guard case .string(let key) = entry.key else {
                throw invalid("decision.remember", "keys must be names, got \(describe(entry.key))")
            }
            let path = "decision.remember.\(key)"
            switch entry.value {
            case .boolean(let flag): updates[key] = .some(.bool(flag))
            case .integer(let number): updates[key] = .some(.integer(number))
            case .number(let number) where !number.isFinite:
                let what = number.isNaN ? "NaN (not a number, as 0/0 makes)" : "\(number < 0 ? "-" : "")math.huge (an infinity)"
                throw invalid(
                    path,
                    "\(what) cannot be remembered: the ledger is saved as JSON, which holds only finite "
                        + "numbers; remember a finite number, a string or a boolean instead")
            case .number(let number): updates[key] = .some(.number(number))
            case .string(let text) where text == LuaPolicy.forgetMarker: updates[key] = .some(nil)
            case .string(let text): updates[key] = .some(.string(text))
            default:
                throw invalid(path, "expected a string, number or boolean, got \(describe(entry.value))")
            }
        }
        return updates
    }

    /// Why a table read as a list is not one: a gap in its indices (`{ [1] = a, [3] = b }`,
    /// or `{ a, nil, b }`), or keys that are not positions at all.
    static func notAList(_ table: LuaTable, sequenceLength: Int, what: String, shape: String) -> String {
        let onlyPositions = table.entries.allSatisfy { entry in
            if case .integer(let position) = entry.key { return position >= 1 }
            return false
        }
        if onlyPositions {
            return "\(what) has a hole at index \(sequenceLength + 1); a list needs every index from 1 up to its length "
                + "(build it with table.insert, or drop the nil)"
        }
        return "expected \(shape), got a table with named keys"
    }

    static func integer(_ value: LuaValue?, at path: String, in range: ClosedRange<Int>) throws(PolicyError) -> Int? {
        guard let value else { return nil }
        guard let number = value.integerValue, let int = Int(exactly: number), range.contains(int) else {
            throw invalid(path, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(describe(value))")
        }
        return int
    }

    static func boolean(_ value: LuaValue?, at path: String) throws(PolicyError) -> Bool? {
        guard let value else { return nil }
        guard case .boolean(let flag) = value else { throw invalid(path, "expected true or false, got \(describe(value))") }
        return flag
    }

    /// A value as a policy author would write it: `"App-Prefs:root"`, `42`, `a table`.
    static func describe(_ value: LuaValue) -> String {
        switch value {
        case .nil: return "nil"
        case .boolean(let flag): return String(flag)
        case .integer(let number): return String(number)
        case .number(let number): return String(number)
        case .string(let text):
            let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
            return "\"\(shown)\""
        case .table: return "a table"
        case .ref(let ref): return "a \(ref.typeName)"
        case .other(let name): return "a \(name)"
        }
    }
}
