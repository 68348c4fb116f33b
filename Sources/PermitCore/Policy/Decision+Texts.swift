extension Decision.Action {
    /// Every text the action puts on screen, named as policies write the field (`title`,
    /// `rows[2].value`, `link`, `url`), in screen order: the checks that hold texts to a rule
    /// (translations, the review's wording, the playground's copy table) read this one list, so
    /// a field added to a prompt is checked everywhere once it is listed here.
    public var texts: [(field: String, text: LocalizedText)] {
        var texts: [(field: String, text: LocalizedText)] = []
        func add(_ field: String, _ text: LocalizedText?) {
            if let text { texts.append((field, text)) }
        }
        func add(_ rows: [InfoRow]) {
            for (index, row) in rows.enumerated() {
                add("rows[\(index + 1)].name", row.name)
                add("rows[\(index + 1)].value", row.value)
            }
        }
        switch self {
        case .softPrompt(let prompt):
            add("title", prompt.title)
            add("message", prompt.message)
            add("accept", prompt.accept)
            add("decline", prompt.decline)
        case .settingsPrompt(let prompt):
            add("title", prompt.title)
            add("message", prompt.message)
            add("open", prompt.open)
            add("cancel", prompt.cancel)
            add(prompt.rows)
        case .inform(let page):
            add("title", page.title)
            add("message", page.message)
            add("button", page.button)
            add("open", page.open)
            add(page.rows)
        case .none, .requestPermission, .openSettings, .dismiss:
            return []
        }
        if let link {
            add("link", link.text)
            add("url", link.address)
        }
        return texts
    }
}

extension Decision {
    /// Every text the decision puts on screen: its action's, then its row's (`row.title`).
    public var texts: [(field: String, text: LocalizedText)] {
        guard let row else { return action.texts }
        return action.texts + row.texts.map { ("row.\($0.field)", $0.text) }
    }
}
