extension Decision {
    /// The decision as the flat table of Lua-named fields that scenario `expect` tables match
    /// and JSON reports and decision records print: `action`, `reason`, texts after
    /// localisation, `options`, `deep_link`, ... Kept in the core so a host's decision records
    /// and the CLI's reports name the fields alike.
    public var fields: [String: PolicyValue] {
        var fields = action.fields
        if let reason { fields["reason"] = .string(reason) }
        if let row { fields["row"] = .table(row.fields) }
        if let remoteRegistration { fields["remote_registration"] = .string(remoteRegistration.rawValue) }
        if let capExempt { fields["cap_exempt"] = .string(capExempt) }
        if let notify {
            let text = Action.fieldValue
            var table: [String: PolicyValue] = ["body": text(notify.body), "sound": .bool(notify.sound)]
            if let title = notify.title { table["title"] = text(title) }
            if let action = notify.action { table["action"] = .string(action) }
            if let badge = notify.badge { table["badge"] = .integer(Int64(badge)) }
            if let id = notify.id { table["id"] = .string(id) }
            if let level = notify.interruptionLevel { table["interruption_level"] = .string(level.rawValue) }
            fields["notify"] = .table(table)
        }
        return fields
    }
}

extension Decision.Action {
    /// A text as `fields` gives it: the text itself, or its translations described.
    static func fieldValue(_ value: LocalizedText) -> PolicyValue {
        switch value {
        case .plain(let text): .string(text)
        case .translations: .string(value.description)
        }
    }

    /// The action's own fields, named as in Lua: `action` and what it shows (a decision's
    /// `row` is one of these tables).
    public var fields: [String: PolicyValue] {
        let action = self
        var fields: [String: PolicyValue] = ["action": .string(action.name)]
        let text = Self.fieldValue
        func rows(_ rows: [InfoRow]) -> PolicyValue {
            .list(rows.map { .table(["name": text($0.name), "value": text($0.value)]) })
        }
        switch action {
        case .none, .dismiss:
            break
        case .softPrompt(let prompt):
            fields["title"] = text(prompt.title)
            fields["message"] = text(prompt.message)
            fields["accept"] = text(prompt.accept)
            if let decline = prompt.decline { fields["decline"] = text(decline) }
            fields["presentation"] = .string(prompt.presentation.rawValue)
            if let variant = prompt.variant { fields["variant"] = .string(variant) }
            if let id = prompt.id { fields["id"] = .string(id) }
        case .requestPermission(let options):
            fields["options"] = .list(options.map { .string($0.rawValue) })
        case .settingsPrompt(let prompt):
            fields["title"] = text(prompt.title)
            fields["message"] = text(prompt.message)
            if let open = prompt.open { fields["open"] = text(open) }
            if let cancel = prompt.cancel { fields["cancel"] = text(cancel) }
            fields["presentation"] = .string(prompt.presentation.rawValue)
            fields["deep_link"] = .string(prompt.deepLink.rawValue)
            if let setting = prompt.forSetting { fields["for_setting"] = .string(setting.rawValue) }
            if let id = prompt.id { fields["id"] = .string(id) }
            if !prompt.rows.isEmpty { fields["rows"] = rows(prompt.rows) }
        case .inform(let page):
            fields["title"] = text(page.title)
            if let message = page.message { fields["message"] = text(message) }
            if let button = page.button { fields["button"] = text(button) }
            if let open = page.open {
                fields["open"] = text(open)
                fields["deep_link"] = .string(page.deepLink.rawValue)
            }
            fields["presentation"] = .string(page.presentation.rawValue)
            if let id = page.id { fields["id"] = .string(id) }
            if !page.rows.isEmpty { fields["rows"] = rows(page.rows) }
        case .openSettings(let deepLink):
            fields["deep_link"] = .string(deepLink.rawValue)
        }
        if let link = action.link {
            fields["link"] = text(link.text)
            fields["url"] = text(link.address)
        }
        return fields
    }
}
