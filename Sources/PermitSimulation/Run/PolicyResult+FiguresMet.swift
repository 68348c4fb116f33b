import Foundation

extension PolicyResult {
    /// The model's ranged figures some simulated user of this run met: a figure counts only
    /// where a user was in the situation it governs (a soft prompt answered, a cold dialog, a
    /// quiet user deciding, a prompt that can annoy, a deletion that can be undone). A verdict
    /// that depends on assumptions names only these: a figure no user met cannot be what a
    /// difference depends on, whatever its correlation over a handful of draws says.
    public var figuresMet: Set<String> {
        let a = answers
        var met: Set<String> = ["cold_launch_share"]
        if a.softPrompts > 0 { met.formUnion(["soft_prompt.accept", "soft_prompt.dismiss"]) }
        if a.dialogsCold > 0 { met.insert("system_dialog.allow_cold") }
        if a.dialogsAfterAccept > 0 { met.insert("system_dialog.allow_after_soft_accept") }
        if a.settingsPrompts > 0 { met.insert("settings_prompt.open") }
        if a.settingsOpened > 0 || a.inlineActed > 0 { met.insert("settings_prompt.enable") }
        if a.inlineShown > 0 { met.insert("inline.act") }
        if a.quietLeftQuiet + a.quietTurnedOff + a.quietDeliveredImmediately > 0 { met.formUnion(RangedFigure.provisionalSplit) }
        if a.softPrompts + a.dialogsCold + a.dialogsAfterAccept + a.settingsPrompts > 0 {
            met.formUnion(["annoyance.deny_increase_per_prompt", "annoyance.uninstall_per_prompt"])
        }
        if uninstalls > 0 { met.formUnion(["reinstall.chance", "reinstall.system_remembers"]) }
        return met
    }

    /// Whether the policy showed anyone a prompt (a soft prompt, a system dialog that appeared,
    /// a settings prompt): a policy that did not has no difference of its own to report.
    public var promptedAnyone: Bool {
        answers.softPrompts + answers.dialogsCold + answers.dialogsAfterAccept + answers.settingsPrompts > 0
    }
}
