import PermitCore

extension SimulationWarning {
    /// The reverse of a policy's warnings, for names the model gets wrong: events it sends that
    /// no policy in the run declares or names (an event exists only for the policies that hear
    /// it), and features it opens whose name is close to, but not, one a policy names. A feature
    /// no policy names is otherwise normal (a screen that needs no notifications, such as the
    /// default model's `history`), and a misspelling of a name a policy waits for is also caught
    /// by that policy's own warning (it names a feature the model never opens); this one says
    /// which model name was meant.
    static func modelWarnings(policies: [SimulationPolicy], model: UserModel) -> [SimulationWarning] {
        guard !policies.isEmpty else { return [] }
        let source = "model \"\(model.name)\""
        var warnings: [SimulationWarning] = []
        if model.readsDeliverProminently {
            warnings.append(
                SimulationWarning(
                    policy: source,
                    message: "provisional.deliver_prominently is read as deliver_immediately: iOS's Keep on a quiet "
                        + "notification no longer turns on alerts, it authorizes without alerts, sounds or badges "
                        + "(docs/platform.md P-02); rename the key"))
        }
        let namedFeatures = unique(policies.flatMap(\.namedFeatures))
        let misspelt = model.features.items.map(\.value).compactMap { name -> (String, String)? in
            guard !namedFeatures.contains(name), let meant = Suggestion.closest(to: name, in: namedFeatures) else { return nil }
            return (name, meant)
        }
        if !misspelt.isEmpty {
            let names = misspelt.map { "\"\($0.0)\" (did you mean \"\($0.1)\"?)" }.joined(separator: ", ")
            warnings.append(
                SimulationWarning(
                    policy: source,
                    message: "opens feature\(misspelt.count == 1 ? "" : "s") \(names) that no policy in this run names, "
                        + "so no prompt is keyed to \(misspelt.count == 1 ? "it" : "them"); fix the name in the model's `features`"))
        }
        warnings += armWarnings(policies: policies, model: model, source: source)
        let heard = unique(policies.flatMap { $0.declaredEvents + $0.namedEvents })
        let unheard = model.appEvents.filter { !heard.contains($0.name) }
        if !unheard.isEmpty {
            let names = unheard.map { event in
                "\"\(event.name)\" (\(event.place))"
                    + (Suggestion.closest(to: event.name, in: heard).map { "; did you mean \"\($0)\"?" } ?? "")
            }
            warnings.append(
                SimulationWarning(
                    policy: source,
                    message: "sends event\(unheard.count == 1 ? "" : "s") \(names.joined(separator: ", ")) that no policy in "
                        + "this run declares or names, so no policy hears \(unheard.count == 1 ? "it" : "them"); "
                        + "if a name is misspelt, fix it in the model's `events`"))
        }
        return warnings
    }

    /// Arm figures no user can meet: an experiment no policy in the run declares, or an arm the
    /// experiment does not have (a misspelling, or a policy whose arms were renamed).
    static func armWarnings(policies: [SimulationPolicy], model: UserModel, source: String) -> [SimulationWarning] {
        var warnings: [SimulationWarning] = []
        let declared = policies.flatMap(\.experiments)
        for (experiment, arms) in model.armFigures.overrides.sorted(by: { $0.key < $1.key }) {
            let known = declared.filter { $0.name == experiment }
            guard !known.isEmpty else {
                let hint = Suggestion.closest(to: experiment, in: unique(declared.map(\.name))).map { " (did you mean \"\($0)\"?)" } ?? ""
                warnings.append(
                    SimulationWarning(
                        policy: source,
                        message: "gives figures for the arms of experiment \"\(experiment)\"\(hint), which no policy in this run "
                            + "declares, so nobody answers with them; fix the name in the model's `arms`"))
                continue
            }
            let armNames = unique(known.flatMap { $0.arms.map(\.name) })
            for arm in arms.keys.sorted() where !armNames.contains(arm) {
                warnings.append(
                    SimulationWarning(
                        policy: source,
                        message: "gives figures for arm \"\(arm)\" of experiment \"\(experiment)\", which has arms "
                            + armNames.joined(separator: ", ") + ", so nobody answers with them; fix the name in the model's `arms`"))
            }
        }
        return warnings
    }

    /// A behaviour section the model leaves out, where the run met what it governs: quiet users
    /// (no `provisional`: every one keeps quiet delivery), prompts (no `annoyance`: none costs a
    /// later "yes" or an uninstall) or deletions (no `reinstall`: nobody comes back). The default
    /// is a fixed assumption `--sensitivity` never varies, so a verdict silently rests on it.
    static func leftOutWarnings(results: [PolicyResult], model: UserModel) -> [SimulationWarning] {
        let source = "model \"\(model.name)\""
        let quiet = results.contains { result in (1...max(1, result.days)).contains { result.share(.quiet, day: $0) > 0 } }
        let prompted = results.contains(where: \.promptedAnyone)
        let deleted = results.contains { $0.uninstalls > 0 }
        var warnings: [SimulationWarning] = []
        for section in model.leftOutSections {
            let (met, what, example): (Bool, String, String)
            switch section {
            case "provisional":
                (met, what, example) = (
                    quiet, "what quiet (provisional) users later do: every one keeps quiet delivery to the end",
                    "provisional: { keep_quiet: 0.6, turn_off: 0.3, deliver_immediately: 0.1 }"
                )
            case "annoyance":
                (met, what, example) = (
                    prompted, "annoyance: a prompt lowers no later \"yes\" and makes nobody delete the app",
                    "annoyance: { deny_increase_per_prompt: 0.03, uninstall_per_prompt: 0.005 }"
                )
            default:
                (met, what, example) = (
                    deleted, "reinstalls: nobody who deletes the app comes back", "reinstall: { chance: 0.3, after_days: 7 }"
                )
            }
            guard met else { continue }
            warnings.append(
                SimulationWarning(
                    policy: source,
                    message: "the model says nothing about \(what) (no `\(section)` section); the verdicts assume it, and "
                        + "--sensitivity never varies it. Give the section with your figures and their ranges, e.g. `\(example)` "
                        + "(docs/reference/model.md#model-file)"))
        }
        return warnings
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
