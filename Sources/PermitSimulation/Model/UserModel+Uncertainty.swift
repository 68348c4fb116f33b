import Foundation
import PermitCore
import PermitInput

/// A chance of the model that is not known exactly: the value the model simulates at, and the
/// range of values it could plausibly be (`permit simulate --sensitivity` draws from it).
public struct UncertainFigure: Sendable, Hashable {
    /// The figure as the model file writes it: `provisional.turn_off`, `cold_launch_share`.
    public let name: String
    /// The value the model simulates at.
    public let value: Double
    /// The plausible values, `value` included.
    public let range: ClosedRange<Double>
    /// `true` when the model gave no range and the figure's documented default range applies
    /// (every figure without a public source has one: docs/simulate.md); `false` when the model
    /// file wrote it.
    public let isDefaultRange: Bool

    /// A figure with its range.
    public init(name: String, value: Double, range: ClosedRange<Double>, isDefaultRange: Bool) {
        self.name = name
        self.value = value
        self.range = range
        self.isDefaultRange = isDefaultRange
    }
}

/// A chance of the model that can carry a range: where the model keeps it, and its default
/// range when it is an assumption (docs/simulate.md, "Ranges").
struct RangedFigure: Sendable {
    /// The name the model file writes.
    let name: String
    /// Reads the figure from a model.
    let get: @Sendable (UserModel) -> Double
    /// Writes it into a drawn model.
    let set: @Sendable (inout UserModel, Double) -> Void
    /// The range an assumption gets when the model gives none, from its value.
    let defaultRange: @Sendable (Double) -> ClosedRange<Double>
    /// Whether the figure gets its default range even when the model file leaves it out (its
    /// default value is itself an assumption), not only when the file sets it.
    let rangedWhenAbsent: Bool

    /// value ± `half`, within 0…1.
    static func plusMinus(_ half: Double) -> @Sendable (Double) -> ClosedRange<Double> {
        { value in max(0, value - half)...min(1, value + half) }
    }

    /// From half the value to twice it, within 0…1: for small rates, whose plausible values
    /// differ by a factor rather than by points.
    static let halfToDouble: @Sendable (Double) -> ClosedRange<Double> = { value in (value / 2)...min(1, value * 2) }

    /// Every chance a model can give a range, in the order reports list them. Every one of them
    /// is an assumption in the shipped models (docs/simulate.md, "Where each default comes
    /// from"), so each has a default range; the reasons for each width are in docs/simulate.md.
    static let all: [RangedFigure] = [
        RangedFigure(
            name: "soft_prompt.accept", get: { $0.softAccept }, set: { $0.softAccept = $1 },
            defaultRange: plusMinus(0.15), rangedWhenAbsent: false),
        RangedFigure(
            name: "soft_prompt.dismiss", get: { $0.softDismiss }, set: { $0.softDismiss = $1 },
            defaultRange: plusMinus(0.10), rangedWhenAbsent: false),
        RangedFigure(
            name: "system_dialog.allow_cold", get: { $0.allowCold }, set: { $0.allowCold = $1 },
            defaultRange: plusMinus(0.10), rangedWhenAbsent: false),
        RangedFigure(
            name: "system_dialog.allow_after_soft_accept", get: { $0.allowAfterSoftAccept },
            set: { $0.allowAfterSoftAccept = $1 }, defaultRange: plusMinus(0.10), rangedWhenAbsent: false),
        RangedFigure(
            name: "settings_prompt.open", get: { $0.settingsOpen }, set: { $0.settingsOpen = $1 },
            defaultRange: plusMinus(0.15), rangedWhenAbsent: false),
        RangedFigure(
            name: "settings_prompt.enable", get: { $0.settingsEnable }, set: { $0.settingsEnable = $1 },
            defaultRange: plusMinus(0.20), rangedWhenAbsent: false),
        RangedFigure(
            name: "inline.act", get: { $0.inlineAct }, set: { $0.inlineAct = $1 }, defaultRange: halfToDouble,
            rangedWhenAbsent: true),
        RangedFigure(
            name: "provisional.keep_quiet", get: { 1 - $0.quietTurnOff - $0.quietDeliverImmediately },
            set: { _, _ in },  // the rest of the split: `drawn` sets the other two after renormalising
            defaultRange: plusMinus(0.20), rangedWhenAbsent: false),
        RangedFigure(
            name: "provisional.turn_off", get: { $0.quietTurnOff }, set: { $0.quietTurnOff = $1 },
            defaultRange: plusMinus(0.20), rangedWhenAbsent: false),
        RangedFigure(
            name: "provisional.deliver_immediately", get: { $0.quietDeliverImmediately },
            set: { $0.quietDeliverImmediately = $1 }, defaultRange: plusMinus(0.20), rangedWhenAbsent: false),
        RangedFigure(
            name: "annoyance.deny_increase_per_prompt", get: { $0.denyIncreasePerPrompt },
            set: { $0.denyIncreasePerPrompt = $1 }, defaultRange: halfToDouble, rangedWhenAbsent: false),
        RangedFigure(
            name: "annoyance.uninstall_per_prompt", get: { $0.uninstallPerPrompt }, set: { $0.uninstallPerPrompt = $1 },
            defaultRange: halfToDouble, rangedWhenAbsent: false),
        RangedFigure(
            name: "reinstall.chance", get: { $0.reinstallChance }, set: { $0.reinstallChance = $1 },
            defaultRange: plusMinus(0.15), rangedWhenAbsent: false),
        RangedFigure(
            name: "reinstall.system_remembers", get: { $0.reinstallSystemRemembers },
            set: { $0.reinstallSystemRemembers = $1 }, defaultRange: plusMinus(0.25), rangedWhenAbsent: false),
        RangedFigure(
            name: "cold_launch_share", get: { $0.coldLaunchShare }, set: { $0.coldLaunchShare = $1 },
            defaultRange: plusMinus(0.20), rangedWhenAbsent: true),
    ]

    /// `all` by name.
    static let named = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static let provisionalSplit = ["provisional.keep_quiet", "provisional.turn_off", "provisional.deliver_immediately"]
}

extension UserModel {
    /// Reads the ranges of the model's chances (after the model itself is read): a range the file
    /// writes, else the figure's default range. A range on any other number (a share of
    /// `os_versions`, a `choice`, `travel.share`) is an error: only the figures of
    /// `RangedFigure.all` are drawn.
    mutating func readRanges(_ root: YAMLValue) throws(InputError) {
        var figures: [UncertainFigure] = []
        var ranged = Set<String>()
        for figure in RangedFigure.all {
            var node = try Self.node(at: figure.name, in: root)
            if node == nil, figure.name == "provisional.deliver_immediately" {
                // A file of before iOS dropped "Deliver Prominently" writes its share under that name.
                node = try Self.node(at: "provisional.deliver_prominently", in: root)
            }
            guard node != nil || figure.rangedWhenAbsent else { continue }
            let value = figure.get(self)
            if let node, let range = try node.chanceWithRange().range {
                figures.append(UncertainFigure(name: figure.name, value: value, range: range, isDefaultRange: false))
                ranged.insert(figure.name)
            } else {
                figures.append(
                    UncertainFigure(name: figure.name, value: value, range: figure.defaultRange(value), isDefaultRange: true))
            }
        }
        try Self.refuseOtherRanges(
            root, path: "", allowed: Set(RangedFigure.all.map(\.name)).union(["provisional.deliver_prominently"]))
        uncertainFigures = figures
    }

    /// The node at a dotted path of tables, `nil` when the file leaves it out.
    static func node(at path: String, in root: YAMLValue) throws(InputError) -> YAMLValue? {
        var node = root
        for key in path.split(separator: ".") {
            guard let next = try node.table().first(where: { $0.key == key })?.value else { return nil }
            node = next
        }
        return node
    }

    /// Throws at the first value written with a range that is not one of the `allowed` figures
    /// (the app's `events` are skipped: their properties are free text).
    static func refuseOtherRanges(_ node: YAMLValue, path: String, allowed: Set<String>) throws(InputError) {
        switch node.node {
        case .scalar:
            if node.looksLikeRange, !allowed.contains(path) {
                throw node.error(
                    "only the model's chances can carry a range, not this value",
                    hint: "ranges go on \(RangedFigure.all.map(\.name).joined(separator: ", ")); write a single number here")
            }
        case .mapping:
            for (key, value) in try node.table() where !(path.isEmpty && ["events", "name", "start"].contains(key)) {
                try refuseOtherRanges(value, path: path.isEmpty ? key : path + "." + key, allowed: allowed)
            }
        case .sequence:
            for item in try node.list() { try refuseOtherRanges(item, path: path + "[]", allowed: allowed) }
        case .alias:
            break
        }
    }

    /// The model with every uncertain figure drawn uniformly from its range, and the drawn
    /// values in `uncertainFigures`' order.
    ///
    /// The provisional split's three shares are drawn each from its range and then divided by
    /// their sum, so they add up to 1 (the values reported are the renormalised ones). When the
    /// drawn `soft_prompt.accept` and `dismiss` add up to more than 1, both are scaled down to
    /// add up to 1 (no user declines).
    public func drawn(_ rng: inout SplitMix64) -> (model: UserModel, values: [Double]) {
        var model = self
        var values: [Double] = []
        for figure in uncertainFigures {
            let range = figure.range
            values.append(range.lowerBound + rng.unit() * (range.upperBound - range.lowerBound))
        }
        let byName = Dictionary(uniqueKeysWithValues: RangedFigure.all.map { ($0.name, $0) })
        let split = RangedFigure.provisionalSplit.map { name in uncertainFigures.firstIndex { $0.name == name } }
        if split.contains(where: { $0 != nil }) {
            var shares = zip(split, RangedFigure.provisionalSplit).map { index, name in
                index.map { values[$0] } ?? byName[name]!.get(self)
            }
            let total = shares.reduce(0, +)
            shares = total > 0 ? shares.map { $0 / total } : [1, 0, 0]
            for (index, share) in zip(split, shares) { if let index { values[index] = share } }
            model.quietTurnOff = shares[1]
            model.quietDeliverImmediately = shares[2]
        }
        for (figure, value) in zip(uncertainFigures, values) where !RangedFigure.provisionalSplit.contains(figure.name) {
            byName[figure.name]?.set(&model, value)
        }
        if model.softAccept + model.softDismiss > 1 {
            let total = model.softAccept + model.softDismiss
            model.softAccept /= total
            model.softDismiss /= total
            for (index, figure) in uncertainFigures.enumerated() {
                if figure.name == "soft_prompt.accept" { values[index] = model.softAccept }
                if figure.name == "soft_prompt.dismiss" { values[index] = model.softDismiss }
            }
        }
        if !armFigures.isEmpty { model.armFigures = armFigures.shifted(from: self, to: model) }
        return (model, values)
    }
}
