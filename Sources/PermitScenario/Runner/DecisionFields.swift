import PermitCore

/// A decision as the flat table of Lua-named fields that `expect` tables match and JSON
/// reports print: `action`, `reason`, texts after localisation, `options`, `deep_link`, ...
/// The core's `Decision.fields`, which decision records print too.
public enum DecisionFields {
    /// The decision's fields by Lua name; texts in their localised (or plain) form.
    public static func of(_ decision: Decision) -> [String: PolicyValue] { decision.fields }
}
