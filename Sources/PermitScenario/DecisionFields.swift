import PermitCore

/// A decision as the flat table of Lua-named fields that `expect` tables match and JSON
/// reports print: `action`, `reason`, texts after localisation, `options`, `deep_link`, ...
public enum DecisionFields {
    /// The decision's fields by Lua name; texts in their localised (or plain) form.
    public static func of(_ decision: Decision) -> [String: PolicyValue] {
        var fields: [String: PolicyValue] = ["action": .string(decision.action.name)]
        if let reason = decision.reason { fields["reason"] = .string(reason) }
        switch decision.action {
        case .none:
            break
        case .softPrompt(let prompt):
            fields["title"] = text(prompt.title)
            fields["message"] = text(prompt.message)
            fields["accept"] = text(prompt.accept)
            fields["decline"] = text(prompt.decline)
            fields["presentation"] = .string(prompt.presentation.rawValue)
            if let variant = prompt.variant { fields["variant"] = .string(variant) }
        case .requestPermission(let options):
            fields["options"] = .list(options.map { .string($0.rawValue) })
        case .settingsPrompt(let prompt):
            fields["title"] = text(prompt.title)
            fields["message"] = text(prompt.message)
            fields["open"] = text(prompt.open)
            fields["cancel"] = text(prompt.cancel)
            fields["presentation"] = .string(prompt.presentation.rawValue)
            fields["deep_link"] = .string(prompt.deepLink.rawValue)
        }
        return fields
    }

    private static func text(_ value: LocalizedText) -> PolicyValue {
        switch value {
        case .plain(let text): .string(text)
        case .translations: .string(value.description)
        }
    }
}
