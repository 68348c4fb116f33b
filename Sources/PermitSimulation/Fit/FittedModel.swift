import Foundation
import PermitCore

/// A model fitted from decision logs: every figure the records identify, with its 95% interval
/// and sample size written beside it, and the base model's values for the rest, flagged.
public struct FittedModel: Sendable {
    /// The model file's text (a valid model: `UserModel.parse` reads it).
    public let yaml: String
    /// What the records could not identify, for stderr.
    public let warnings: [String]
    /// Each figure fitted, by its model path (`soft_prompt.accept`, `sessions_per_day` …).
    public let figures: [String: Figure]
    /// Each figure by OS version and locale (`os 17.5`, `locale en`), for groups of at least
    /// `minimumGroup` observations: figure → group → estimate, as the file's comments give them.
    public let groups: [String: [String: Figure]]

    /// A fitted figure: the estimate, its 95% interval, and what it was measured on.
    public struct Figure: Sendable, Hashable {
        /// The estimate.
        public let value: Double
        /// Its 95% interval.
        public let interval: Interval
        /// The observations it was measured on.
        public let n: Int
    }

    /// Groups by OS version or locale get their own figures (as comments) from this many
    /// observations on: below it a group's interval is too wide to say anything.
    public static let minimumGroup = 100

    /// Fits from `fit` (already fed every record), over `base` (its parsed model and its text).
    public init(fit: RecordFit, base: UserModel, baseText: String, baseName: String) {
        var fitting = Fitting(fit: fit, base: base, baseText: baseText, baseName: baseName)
        fitting.population()
        fitting.activity()
        fitting.appEvents()
        fitting.softPromptAndDialog()
        fitting.settingsInlineAndLaunches()
        fitting.quiet()
        fitting.unidentified()
        yaml = fitting.writer.text
        warnings = fitting.warnings
        figures = fitting.figures
        groups = fitting.groupFigures
    }
}

/// The fit's work, section by section of the model file.
private struct Fitting {
    var fit: RecordFit
    let finished: RecordFit.Finished
    let base: UserModel
    let baseName: String
    var writer: Writer
    /// The chances annoyance lowers, at a first prompt, and the slope.
    let firstPrompt: AnnoyanceFit
    var warnings: [String] = []
    var figures: [String: FittedModel.Figure] = [:]
    var groupFigures: [String: [String: FittedModel.Figure]] = [:]

    init(fit: RecordFit, base: UserModel, baseText: String, baseName: String) {
        var fit = fit
        finished = fit.finish()
        self.fit = fit
        self.base = base
        // The base model's name lands in comments: a line break in it must not start a line.
        self.baseName = Writer.inComment(baseName)
        writer = Writer(baseText: baseText, baseName: self.baseName)
        if fit.duplicateLines > 0 {
            warnings.append(
                "\(Writer.count(fit.duplicateLines)) duplicated lines skipped: each the same as an earlier line of its install "
                    + "at the same time (a batch delivered twice?); every count uses each record once")
        }
        firstPrompt = AnnoyanceFit(
            answers: fit.answersByPrompts.compactMapValues { $0[""] }, baseSlope: base.denyIncreasePerPrompt)
    }

    /// A chance annoyance lowers, as at a person's first prompt (`AnnoyanceFit`).
    func chance(_ name: String) -> FittedModel.Figure? {
        firstPrompt.chances[name].map { FittedModel.Figure(value: $0.value, interval: $0.interval, n: $0.n) }
    }

    func share(_ name: String, group: String = "") -> FittedModel.Figure? {
        guard let counts = fit.shares[name]?[group], counts.trials > 0 else { return nil }
        return FittedModel.Figure(
            value: Double(counts.successes) / Double(counts.trials),
            interval: Confidence.wilson(successes: counts.successes, of: counts.trials), n: counts.trials)
    }

    /// A base figure the records do not identify, with the range the base file wrote for it (a
    /// default range is not written: the fitted model gets it again when it is read).
    func kept(_ name: String, _ value: Double) -> String {
        guard let figure = base.uncertainFigures.first(where: { $0.name == name }), !figure.isDefaultRange else {
            return Writer.number(value)
        }
        return Writer.ranged(value, Interval(low: figure.range.lowerBound, high: figure.range.upperBound))
    }

    mutating func keep(_ name: String, _ value: Double, _ why: String) -> String {
        warnings.append("\(name): \(why); kept \(baseName)'s \(Writer.number(value))")
        return "\(name) not identified by the records (\(why)): \(baseName)'s"
    }

    mutating func population() {
        // Who the users are.
        let people = fit.osVersions.values.reduce(0, +)
        if people > 0 {
            writer.replace("os_versions", with: Writer.shares("os_versions", fit.osVersions, unit: "users", figures: &figures))
            writer.replace("locales", with: Writer.shares("locales", fit.locales, unit: "users", figures: &figures))
        } else {
            warnings.append("the records name no install; nothing to fit")
        }
    }

    mutating func activity() {
        // How often they use the app.
        if fit.innerDays > 0 {
            let spread = DaySpread(sum: fit.sessionsOnInnerDays, squares: fit.sessionSquaresOnInnerDays, days: fit.innerDays)
            let on =
                "n = \(Writer.count(fit.sessionsOnInnerDays)) sessions on \(Writer.count(fit.innerDays)) whole days inside installs' logs"
            if let dispersion = spread.overdispersion {
                let rate = spread.meanWithSpread
                figures["sessions_per_day"] = rate
                figures["sessions_per_day.dispersion"] = FittedModel.Figure(
                    value: dispersion, interval: Interval(low: dispersion, high: dispersion), n: fit.innerDays)
                writer.replace(
                    "sessions_per_day",
                    with:
                        "sessions_per_day: { negative_binomial: { mean: \(Writer.number(rate.value)), dispersion: \(Writer.number(dispersion)) } }"
                        + "  # mean 95% \(Writer.interval(rate.interval)); the days spread more than a Poisson's (variance "
                        + "\(Writer.number(spread.variance)) against \(Writer.number(spread.mean))), \(on)")
            } else {
                let rate = Writer.poisson(events: fit.sessionsOnInnerDays, over: fit.innerDays)
                figures["sessions_per_day"] = rate
                writer.replace(
                    "sessions_per_day",
                    with: "sessions_per_day: { poisson: \(Writer.number(rate.value)) }  # mean 95% \(Writer.interval(rate.interval)), \(on)"
                )
            }
        } else {
            writer.flag("sessions_per_day", "no install was logged on three different days")
            warnings.append("sessions_per_day: no install was logged on three different days; kept \(baseName)'s")
        }
        if fit.sessions > 0 {
            let rate = Writer.poisson(events: fit.featureOpens, over: fit.sessions)
            figures["feature_opens_per_session"] = rate
            writer.replace(
                "feature_opens_per_session",
                with: "feature_opens_per_session: { poisson: \(Writer.number(rate.value)) }  # mean 95% \(Writer.interval(rate.interval)), "
                    + "n = \(Writer.count(fit.sessions)) sessions")
        } else {
            writer.flag("feature_opens_per_session", "no session in the records")
        }
        if !fit.features.isEmpty {
            writer.replace("features", with: Writer.shares("features", fit.features, unit: "feature opens", figures: &figures))
        } else {
            writer.flag("features", "no feature_opened in the records")
            warnings.append("features: no feature_opened in the records; kept \(baseName)'s")
        }
    }

    /// The app's own events, each in the form the base model gives it (`AppEventFit`).
    mutating func appEvents() {
        let events = AppEventFit(base: base, counts: fit.appEvents, sessions: fit.sessions, features: fit.features, baseName: baseName)
        figures.merge(events.figures) { $1 }
        warnings += events.warnings
        if let block = events.block { writer.replace("events", with: block) }
    }

    mutating func softPromptAndDialog() {
        // How they answer.
        if let accept = chance("soft_prompt.accept"), let dismiss = share("soft_prompt.dismiss") {
            figures["soft_prompt.accept"] = accept
            figures["soft_prompt.dismiss"] = dismiss
            writer.replace(
                "soft_prompt",
                with:
                    "soft_prompt: { accept: \(Writer.ranged(min(accept.value, 1 - dismiss.value), accept.interval)), "
                    + "dismiss: \(Writer.ranged(dismiss.value, dismiss.interval)) }  "
                    + "# accept at a first prompt 95% \(Writer.interval(accept.interval)), dismiss 95% \(Writer.interval(dismiss.interval)), "
                    + "n = \(Writer.count(accept.n)) answers"
            )
        } else {
            writer.flag("soft_prompt", "no soft prompt answered")
            warnings.append("soft_prompt: no soft prompt was answered in the records; kept \(baseName)'s")
        }
        var dialogNotes: [String] = []
        var dialogValues: [String] = []
        for (key, baseValue) in [("allow_cold", base.allowCold), ("allow_after_soft_accept", base.allowAfterSoftAccept)] {
            if let figure = chance("system_dialog.\(key)") {
                figures["system_dialog.\(key)"] = figure
                dialogValues.append("\(key): \(Writer.ranged(figure.value, figure.interval))")
                dialogNotes.append("\(key) at a first prompt 95% \(Writer.interval(figure.interval)), n = \(Writer.count(figure.n))")
            } else {
                let why =
                    key == "allow_cold"
                    ? "no system dialog shown without a soft prompt accepted just before"
                    : "no system dialog shown right after a soft prompt was accepted"
                dialogValues.append("\(key): \(kept("system_dialog.\(key)", baseValue))")
                dialogNotes.append(keep("system_dialog.\(key)", baseValue, why))
            }
        }
        writer.replace(
            "system_dialog", with: "system_dialog: { \(dialogValues.joined(separator: ", ")) }  # " + dialogNotes.joined(separator: "; "))
    }

    mutating func settingsInlineAndLaunches() {
        var settingsValues: [String] = []
        var settingsNotes: [String] = []
        for (key, baseValue, why) in [
            ("open", base.settingsOpen, "no settings prompt answered"),
            ("enable", base.settingsEnable, "nobody denied came back from Settings"),
        ] {
            if let figure = chance("settings_prompt.\(key)") {
                figures["settings_prompt.\(key)"] = figure
                settingsValues.append("\(key): \(Writer.ranged(figure.value, figure.interval))")
                settingsNotes.append("\(key) at a first prompt 95% \(Writer.interval(figure.interval)), n = \(Writer.count(figure.n))")
            } else {
                settingsValues.append("\(key): \(kept("settings_prompt.\(key)", baseValue))")
                settingsNotes.append(keep("settings_prompt.\(key)", baseValue, why))
            }
        }
        writer.replace(
            "settings_prompt",
            with: "settings_prompt: { \(settingsValues.joined(separator: ", ")) }  # " + settingsNotes.joined(separator: "; "))
        if let act = share("inline.act") {
            figures["inline.act"] = act
            writer.replace(
                "inline",
                with:
                    "inline: { act: \(Writer.ranged(act.value, act.interval)) }  # act 95% \(Writer.interval(act.interval)), n = \(Writer.count(act.n)) rows seen"
            )
        } else {
            writer.flag("inline", "no inline row shown")
        }
        if let cold = share("cold_launch_share") {
            figures["cold_launch_share"] = cold
            writer.replace(
                "cold_launch_share",
                with: "cold_launch_share: \(Writer.ranged(cold.value, cold.interval))  # 95% \(Writer.interval(cold.interval)), "
                    + "n = \(Writer.count(cold.n)) sessions after each install's first")
        } else {
            writer.flag("cold_launch_share", "no install had a second session")
        }
    }

    mutating func quiet() {
        // Quiet delivery.
        if let off = share("provisional.turn_off"), let prominent = share("provisional.deliver_immediately") {
            figures["provisional.turn_off"] = off
            figures["provisional.deliver_immediately"] = prominent
            figures["provisional.keep_quiet"] = share("provisional.keep_quiet")
            let keepValue = max(0, 1 - (Double(Writer.number(off.value))! + Double(Writer.number(prominent.value))!))
            let keep = figures["provisional.keep_quiet"].map { Writer.ranged(keepValue, $0.interval) } ?? Writer.number(keepValue)
            if finished.quietEffectiveUsers < 30 {
                warnings.append(
                    "provisional: the quiet users' choices rest on about \(Int(finished.quietEffectiveUsers.rounded())) users "
                        + "(few were followed while quiet past the choices the logs show: a later dialog or the logs' end "
                        + "took them out first); keep_quiet is uncertain, see its interval")
            }
            let offText = Writer.ranged(off.value, off.interval), prominentText = Writer.ranged(prominent.value, prominent.interval)
            writer.replace(
                "provisional",
                with: "provisional: { keep_quiet: \(keep), turn_off: \(offText), deliver_immediately: \(prominentText), "
                    + "decide_after_days: \(Writer.distribution(base.quietDecidesAfterDays)) }\n"
                    + "# provisional: turn_off 95% \(Writer.interval(off.interval)), deliver_immediately 95% \(Writer.interval(prominent.interval)), "
                    + "n = \(Writer.count(off.n)) effective quiet users (Kaplan–Meier: \(Writer.count(finished.quietChoices)) seen to choose, "
                    + "\(Writer.count(finished.quietUndecided)) still quiet when their log ends and \(Writer.count(finished.quietExcluded)) who left "
                    + "quiet delivery by a dialog or Settings, each counted until then);\n"
                    + "# decide_after_days not identified by the records (the app sees a choice only at its next session): \(baseName)'s")
        } else {
            writer.flag("provisional", "no quiet user's choice seen")
            warnings.append("provisional: no quiet (provisional) user was seen to choose; kept \(baseName)'s")
        }
    }

    /// The slope each prompt takes off later "yes" chances, when answers came after different
    /// numbers of earlier prompts; uninstalls per prompt never show in an app's own logs.
    mutating func annoyance() {
        let uninstalls = "uninstall_per_prompt not identified by the records (an app cannot log its own deletion): \(baseName)'s"
        guard let slope = firstPrompt.slope else {
            writer.flag(
                "annoyance",
                "no answer came after a different number of earlier prompts than the others of its kind; the first-prompt "
                    + "chances above assume this slope; an app cannot log its own deletion, so uninstalls are not seen")
            if !firstPrompt.chances.isEmpty {
                warnings.append(
                    "annoyance.deny_increase_per_prompt: every answer of a kind came after the same number of earlier prompts; "
                        + "kept \(baseName)'s \(Writer.number(base.denyIncreasePerPrompt)), which the fitted chances assume")
            }
            return
        }
        figures["annoyance.deny_increase_per_prompt"] = FittedModel.Figure(
            value: slope.value, interval: slope.interval, n: slope.n)
        writer.replace(
            "annoyance",
            with: "annoyance: { deny_increase_per_prompt: \(Writer.ranged(slope.value, slope.interval)), "
                + "uninstall_per_prompt: \(kept("annoyance.uninstall_per_prompt", base.uninstallPerPrompt)) }\n"
                + "# annoyance: deny_increase_per_prompt 95% \(Writer.interval(slope.interval)), fitted with the first-prompt chances "
                + "from \(Writer.count(slope.n)) answers after 0 to \(firstPrompt.mostEarlierPrompts) earlier prompts; \(uninstalls)")
    }

    /// Each group's first-prompt chances: figure → group → estimate. With a fitted slope, each is
    /// fitted jointly with everybody's answers, the figure's answers split into the group's and
    /// the rest's (a chance each) and one slope for all: the group's chance sits on the line of
    /// everybody's slope (its own would rest on a fraction of the answers), and its interval
    /// carries that slope's uncertainty and the group's share in it. A chance read off a line
    /// held fixed, as if the slope were known, gets an interval several times too narrow for a
    /// figure asked again and again (`settings_prompt.open`). Without a fitted slope the base's
    /// is held, as for everybody.
    func groupChances() -> [String: [String: AnnoyanceFit.Estimate]] {
        let everybody = fit.answersByPrompts.compactMapValues { $0[""] }
        var chances: [String: [String: AnnoyanceFit.Estimate]] = [:]
        for (name, groups) in fit.answersByPrompts {
            for (group, cells) in groups where !group.isEmpty {
                guard firstPrompt.slope != nil, let all = everybody[name] else {
                    let held = AnnoyanceFit(answers: [name: cells], baseSlope: firstPrompt.slopeUsed, holdSlope: true)
                    chances[name, default: [:]][group] = held.chances[name]
                    continue
                }
                var answers = everybody
                answers[name] = nil
                let own = "\(name)\u{1}group", rest = "\(name)\u{1}rest"
                answers[own] = cells
                answers[rest] = all.reduce(into: [Int: Counts]()) { rest, cell in
                    let mine = cells[cell.key] ?? Counts()
                    rest[cell.key] = Counts(successes: cell.value.successes - mine.successes, trials: cell.value.trials - mine.trials)
                }
                let joint = AnnoyanceFit(answers: answers, baseSlope: firstPrompt.slopeUsed)
                chances[name, default: [:]][group] = joint.chances[own]
            }
        }
        return chances
    }

    mutating func unidentified() {
        // What records cannot show.
        annoyance()
        writer.flag(
            "reinstall",
            "an app cannot log its own deletion; \(Writer.count(fit.reinstalledUsers)) users came back with a new install under the same durable id, but without the deletions the chance is not identified"
        )
        writer.flag("max_prompts_per_day", "the engine's setting, not the users'")
        groupFigures = Writer.groupFigures(fit.shares, firstPrompt: groupChances(), minimum: FittedModel.minimumGroup)
        writer.groups(groupFigures, firstPrompt: Set(fit.answersByPrompts.keys), minimum: FittedModel.minimumGroup)
        writer.header(records: fit.recordCount, policies: fit.policies.sorted(), base: baseName)
    }
}

/// Writes the fitted model over the base model's text, one top-level key at a time.
struct Writer {
    var lines: [String]
    let baseName: String

    init(baseText: String, baseName: String) {
        lines = baseText.components(separatedBy: "\n")
        while lines.last == "" { lines.removeLast() }
        self.baseName = baseName
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// The lines of top-level `key`: its line and the indented ones after it.
    private func block(_ key: String) -> Range<Int>? {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("\(key):") }) else { return nil }
        var end = start + 1
        while end < lines.count, lines[end].isEmpty || [" ", "\t", "-"].contains(lines[end].first) { end += 1 }
        while end > start + 1, lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty { end -= 1 }
        return start..<end
    }

    mutating func replace(_ key: String, with text: String) {
        let new = text.components(separatedBy: "\n")
        if let range = block(key) {
            lines.replaceSubrange(range, with: new)
        } else {
            lines.append(contentsOf: new)
        }
    }

    /// Marks a key the records do not identify, above its line (when the base model has it).
    mutating func flag(_ key: String, _ why: String) {
        guard let range = block(key) else { return }
        lines.insert("# \(key): not identified by the records (\(why)): \(baseName)'s", at: range.lowerBound)
    }

    mutating func header(records: Int, policies: [String], base: String) {
        let top = [
            "# Fitted by `permit fit` from \(Writer.count(records)) decision records"
                + (policies.isEmpty ? "" : " (policy \(policies.map(Writer.inComment).joined(separator: ", ")))") + ", over \(base).",
            "# Each fitted figure has its 95% interval and sample size beside it (Wilson for shares, the score",
            "# interval for Poisson means); figures marked \"not identified by the records\" are \(base)'s.",
            "# See docs/simulate.md (records → model → comparison).",
        ]
        if let index = lines.firstIndex(where: { $0.hasPrefix("name:") }) {
            lines[index] = "name: fitted"
        } else {
            lines.insert("name: fitted", at: 0)
        }
        lines.insert(contentsOf: top, at: 0)
    }

    /// Per-OS and per-locale figures: the chances annoyance lowers are the group's first-prompt
    /// chances (`firstPrompt`), as the model's are; the other figures are plain shares.
    static func groupFigures(
        _ shares: [String: [String: Counts]], firstPrompt: [String: [String: AnnoyanceFit.Estimate]], minimum: Int
    ) -> [String: [String: FittedModel.Figure]] {
        var figures: [String: [String: FittedModel.Figure]] = [:]
        for (name, groups) in shares {
            for (group, counts) in groups where !group.isEmpty && counts.trials >= minimum {
                if let chance = firstPrompt[name]?[group] {
                    figures[name, default: [:]][group] = FittedModel.Figure(value: chance.value, interval: chance.interval, n: chance.n)
                } else {
                    figures[name, default: [:]][group] = FittedModel.Figure(
                        value: Double(counts.successes) / Double(counts.trials),
                        interval: Confidence.wilson(successes: counts.successes, of: counts.trials), n: counts.trials)
                }
            }
        }
        return figures
    }

    /// The groups' figures, as comments: the model has one figure for everybody.
    mutating func groups(_ figures: [String: [String: FittedModel.Figure]], firstPrompt: Set<String>, minimum: Int) {
        var out: [String] = []
        for name in figures.keys.sorted() {
            for (group, figure) in figures[name]!.sorted(by: { $0.key < $1.key }) {
                let first = firstPrompt.contains(name) ? " at a first prompt" : ""
                out.append(
                    "#   \(name), \(Writer.inComment(group)): \(Writer.number(figure.value))\(first) "
                        + "95% \(Writer.interval(figure.interval)), n = \(Writer.count(figure.n))")
            }
        }
        lines.append("")
        lines.append("# By OS version and locale, for groups of at least \(minimum) observations (the model has one figure for all users):")
        lines.append(contentsOf: out.isEmpty ? ["#   no group has enough observations"] : out)
    }

    /// A block of shares, largest first, rounded so that they add up to exactly 1.
    static func shares(_ key: String, _ counts: [String: Int], unit: String, figures: inout [String: FittedModel.Figure]) -> String {
        let total = counts.values.reduce(0, +)
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var rounded = sorted.map { (Double($0.value) / Double(total) * 1000).rounded() / 1000 }
        rounded[0] = ((1 - rounded.dropFirst().reduce(0, +)) * 1000).rounded() / 1000
        var out = ["\(key):  # \(count(total)) \(unit)"]
        for (index, entry) in sorted.enumerated() {
            let interval = Confidence.wilson(successes: entry.value, of: total)
            figures["\(key).\(entry.key)"] = FittedModel.Figure(value: Double(entry.value) / Double(total), interval: interval, n: total)
            out.append("  \(quoted(entry.key)): \(number(rounded[index]))  # 95% \(Self.interval(interval)), n = \(count(entry.value))")
        }
        return out.joined(separator: "\n")
    }

    /// A Poisson mean, `events / exposure`, with the score interval:
    /// (N + z²/2 ± z·√(N + z²/4)) / T.
    static func poisson(events: Int, over exposure: Int) -> FittedModel.Figure {
        let n = Double(events), t = Double(exposure), z = Confidence.z
        let centre = n + z * z / 2, half = z * (n + z * z / 4).squareRoot()
        return FittedModel.Figure(
            value: n / t, interval: Interval(low: max(0, centre - half) / t, high: (centre + half) / t), n: exposure)
    }

    static func distribution(_ distribution: CountDistribution) -> String {
        switch distribution {
        case .fixed(let count): "\(count)"
        case .poisson(let mean): "{ poisson: \(mean) }"
        case .negativeBinomial(let mean, let dispersion): "{ negative_binomial: { mean: \(mean), dispersion: \(dispersion) } }"
        case .uniform(let range): "{ uniform: [\(range.lowerBound), \(range.upperBound)] }"
        case .choice(let weighted):
            "{ choice: { " + weighted.items.map { "\($0.value): \($0.share)" }.joined(separator: ", ") + " } }"
        }
    }

    /// A string from the records (a locale, a feature, an OS version) as a YAML double-quoted
    /// scalar. Every such string goes through here: a quote, a backslash, a line break or any
    /// other control or invisible format character is escaped, so no record can end the scalar
    /// or its line and add keys to the model; the model reads back the string as logged.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where escaped(scalar):
                out += scalar.value > 0xFFFF ? String(format: "\\U%08X", scalar.value) : String(format: "\\u%04X", scalar.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Text from the records or the command line written inside a comment: as it is when it
    /// holds no control or format character, else `quoted`, so it cannot end the comment's line.
    static func inComment(_ text: String) -> String {
        text.unicodeScalars.contains(where: escaped) ? quoted(text) : text
    }

    /// Control, format (bidirectional overrides, zero widths), line and paragraph separators,
    /// private and unassigned characters: what may break a line or hide what a line says.
    private static func escaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned: true
        default: false
        }
    }

    static func number(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0"), !text.hasSuffix(".0") { text.removeLast() }
        return text
    }

    /// A fitted chance with its 95% interval as its range (`"0.627 [0.608, 0.646]"`), which
    /// `--sensitivity` draws from: a figure the logs measured varies by its own uncertainty, not
    /// by the wide default range of an assumption. Rounded, the range still holds the value.
    static func ranged(_ value: Double, _ interval: Interval) -> String {
        let text = number(value), rounded = Double(text)!
        let low = min(rounded, (interval.low * 1000).rounded(.down) / 1000)
        let high = max(rounded, (interval.high * 1000).rounded(.up) / 1000)
        return "\"\(text) [\(number(low)), \(number(high))]\""
    }

    static func interval(_ interval: Interval) -> String {
        "[" + String(format: "%.3f", interval.low) + ", " + String(format: "%.3f", interval.high) + "]"
    }

    /// `12,345`: the reports' one way of writing a count.
    static func count(_ value: Int) -> String { SimulationResult.grouped(value) }
}
