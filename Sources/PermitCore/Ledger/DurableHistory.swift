/// A history of `ctx.history` that a policy may keep across a reinstall.
///
/// Only the prompt histories qualify: they are what caps and back-offs count, and what a user
/// would be nagged with again if a reinstall reset them. Launch counts, feature use and the
/// local day describe this install and start afresh.
public enum DurableHistory: String, Sendable, Hashable, CaseIterable {
    /// `ctx.history.soft_prompt`.
    case softPrompt = "soft_prompt"
    /// `ctx.history.system_prompt`.
    case systemPrompt = "system_prompt"
    /// `ctx.history.settings_prompt`.
    case settingsPrompt = "settings_prompt"
}
