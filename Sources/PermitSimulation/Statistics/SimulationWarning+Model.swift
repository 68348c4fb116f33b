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

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
