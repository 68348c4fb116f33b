import PermitInput

/// `arms`: answer figures that differ by experiment arm, for the users the policy puts in that
/// arm (`arms: { first_ask: { warm: { soft_prompt: { accept: 0.5 } } } }`).
///
/// Why: a wording A/B test asks whether one prompt's words get more "yes" than another's. With
/// one accept chance for everybody the arms can only differ by chance, and a report shows that
/// noise as if it were the wording's effect. Giving an arm its own figures says what the team
/// believes the wording does, and the per-arm table shows what that belief buys.
///
/// An arm names the answers a prompt's words and timing can change: the soft prompt's, the
/// system dialog's, the settings prompt's and the inline row's. A figure the arm leaves out is
/// the model's; an arm the file leaves out, or an experiment, answers with the model's own. A
/// figure is set by the arms of one experiment only: a user is in an arm of every experiment,
/// and two experiments setting one figure would leave unsaid which of them applies.
public struct ArmFigures: Sendable, Hashable {
    /// Experiment → arm → figure (as `RangedFigure` names it, `soft_prompt.accept`) → value.
    public let overrides: [String: [String: [String: Double]]]

    /// The sections an arm may give, and each one's figures.
    static let sections: [(section: String, keys: [String])] = [
        ("soft_prompt", ["accept", "dismiss"]), ("system_dialog", ["allow_cold", "allow_after_soft_accept"]),
        ("settings_prompt", ["open", "enable"]), ("inline", ["act"]),
    ]

    /// No arm has figures of its own.
    public static let none = ArmFigures(overrides: [:])

    /// Whether no arm has figures of its own.
    public var isEmpty: Bool { overrides.isEmpty }

    /// The arm figures `overrides`.
    public init(overrides: [String: [String: [String: Double]]]) {
        self.overrides = overrides
    }

    /// Reads `arms` over `base` (whose figures an arm leaves out apply); every mistake names
    /// the file, line and field.
    static func parse(_ node: YAMLValue, base: UserModel) throws(InputError) -> ArmFigures {
        var overrides: [String: [String: [String: Double]]] = [:]
        var setBy: [String: String] = [:]
        for (experiment, arms) in try node.table() {
            for (arm, figures) in try arms.table() {
                var values: [String: Double] = [:]
                let given = try figures.fields(allowed: sections.map(\.section))
                for (section, keys) in sections {
                    guard let sectionNode = given[section] else { continue }
                    for (key, value) in try sectionNode.fields(allowed: keys) {
                        let name = "\(section).\(key)"
                        if let other = setBy[name], other != experiment {
                            throw value.error(
                                "\(name) is set by arms of both \(other) and \(experiment); a user is in an arm of each, "
                                    + "so which one applies is not said",
                                hint: "give \(name) in the arms of one experiment only")
                        }
                        setBy[name] = experiment
                        values[name] = try value.probability()
                    }
                }
                let accept = values["soft_prompt.accept"] ?? base.softAccept
                let dismiss = values["soft_prompt.dismiss"] ?? base.softDismiss
                guard accept + dismiss <= 1.000_001 else {
                    throw figures.error(
                        "in arm \(arm) of \(experiment), soft_prompt's accept (\(accept)) and dismiss (\(dismiss)) add up to more than 1",
                        hint: "the rest of the arm's users decline; the two must leave room for it")
                }
                overrides[experiment, default: [:]][arm] = values
            }
        }
        return ArmFigures(overrides: overrides)
    }

    /// The model a user in `arms` (experiment → arm) answers with: `base` with the figures of
    /// each of the user's arms that has some.
    func model(_ base: UserModel, arms: [String: String]) -> UserModel {
        var model = base
        for (experiment, arm) in arms {
            guard let values = overrides[experiment]?[arm] else { continue }
            for (name, value) in values { RangedFigure.named[name]?.set(&model, value) }
        }
        return model
    }

    /// The arms' figures for a model drawn from `base` (`--sensitivity`): each keeps its
    /// difference from the model's figure, so a draw moves every arm as it moves everybody and
    /// the arms still differ by what the file says they do.
    func shifted(from base: UserModel, to drawn: UserModel) -> ArmFigures {
        ArmFigures(
            overrides: overrides.mapValues { arms in
                arms.mapValues { values in
                    var shifted = values
                    for (name, value) in values {
                        guard let figure = RangedFigure.named[name] else { continue }
                        shifted[name] = min(1, max(0, value + figure.get(drawn) - figure.get(base)))
                    }
                    return shifted
                }
            })
    }
}
