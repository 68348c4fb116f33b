import Foundation
import PermitInput

/// `permit simulate --report FILE.html`: one self-contained page (no scripts, no external
/// files) with an SVG chart over the days of the users who can receive alerts (a solid line per
/// policy) and of those with quiet delivery only (a dashed line in the same colour), each over
/// its 95% band, and the summary
/// table. The markup is well-formed XML, so tools (and the tests) can parse it.
public enum HTMLReport {
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    /// The page for `result`; `modelFile` is named in its heading.
    /// The page also says what the intervals cover and how the verdicts are corrected
    /// (`allPairs`: over every pair of policies, as the text report).
    public static func render(
        _ result: SimulationResult, modelFile: String? = nil, allPairs: Bool = false, sensitivity: SensitivityResult? = nil
    ) -> String {
        let title = "Permit simulation: " + result.policies.map(\.name).joined(separator: " vs ")
        var body = answer(result, allPairs: allPairs, sensitivity: sensitivity)
        body += "<h2 class=\"chart-title\">Who can receive alerts (solid) and who gets quiet delivery (dashed), over the days</h2>\n"
        body += chart(result)
        if let sensitivity {
            body += "<h2>Sensitivity to the model's assumptions (\(sensitivity.draws.count) drawn models)</h2>\n"
            body += rows(sensitivity.reportRows(), className: "sensitivity")
        }
        body += "<h2>Every figure, per policy</h2>\n" + table(result) + experiments(result)
        body += liveTest(result, sensitivity: sensitivity)
        if !result.warnings.isEmpty {
            body += "<ul class=\"warnings\">\n"
            for warning in result.warnings { body += "<li>warning: \(escape(warning.description))</li>\n" }
            body += "</ul>\n"
        }
        let file = modelFile.map { " (" + escape($0) + ")" } ?? ""
        let meta = "\(result.users) users × \(result.days) days, model \(escape(result.model))\(file), seed \(result.seed)"
        return page(title: title, meta: meta, body: body)
    }

    /// A whole page around `body`: the title as heading, the `meta` line (already escaped), one style sheet.
    static func page(title: String, meta: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <title>\(escape(title))</title>
        <style>
        body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
        h1 { font-size: 1.4em; }
        h2 { font-size: 1.15em; margin-top: 1.8em; }
        section.answer { background: #f4f7fb; border-left: 4px solid #1f77b4; padding: 0.2em 1em; max-width: 60em; }
        table { max-width: 100%; }
        p.meta { color: #555; }
        code { white-space: nowrap; }
        table { border-collapse: collapse; margin-top: 1.5em; }
        th, td { padding: 0.3em 0.9em; border-bottom: 1px solid #ddd; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        th { text-align: right; }
        th.row { text-align: left; font-weight: normal; }
        svg text { font-size: 12px; fill: #333; }
        svg .axis-label { font-size: 13px; font-weight: 600; }
        svg .grid { stroke: #e5e5e5; }
        svg .axis-line { stroke: #333; }
        </style>
        </head>
        <body>
        <h1>\(escape(title))</h1>
        <p class="meta">\(meta)</p>

        """ + body + "</body>\n</html>\n"
    }

    static func chart(_ result: SimulationResult) -> String {
        let days = max(1, result.days)
        let highest =
            result.policies.flatMap { policy in
                (1...max(1, policy.days)).flatMap { day in
                    policy.days == 0 ? [] : [policy.interval(.fullAlerts, day: day).high, policy.interval(.quiet, day: day).high]
                }
            }.max() ?? 0
        let frame = ChartFrame.forHighest(highest)
        let xStep = niceStep(days)
        func x(_ day: Int) -> Double { frame.x(Double(day), of: Double(days)) }
        var svg = frame.open(
            label: "Users who can receive alerts (solid) and with quiet delivery only (dashed) over the days, per policy",
            title: "Can receive alerts (full authorization, alerts on; solid) and quiet delivery (provisional; dashed) over the days")
        svg += frame.axes(ticks: stride(from: 0, through: days, by: xStep).map { (x($0), "\($0)") }, xLabel: "day")
        // One line per policy: day 0 (nobody asked yet) then the end of each day.
        for (index, policy) in result.policies.enumerated() {
            let colour = palette[index % palette.count]
            svg += lines(policy, colour: colour, days: days, frame: frame, x: x)
            svg += frame.legend(index, label: policy.name, colour: colour)
        }
        return svg + "</svg>\n"
    }

    /// A policy's two lines (can receive alerts, solid; quiet, dashed), each over its 95% band.
    static func lines(_ policy: PolicyResult, colour: String, days: Int, frame: ChartFrame, x: (Int) -> Double) -> String {
        let f = ChartFrame.f
        var svg = ""
        for (series, reach) in [("alerts", Reach.fullAlerts), ("quiet", Reach.quiet)] {
            let intervals = (0...days).map { day in
                (x: x(day), interval: day == 0 || day > policy.days ? Interval(low: 0, high: 0) : policy.interval(reach, day: day))
            }
            svg += frame.band(intervals, colour: colour, data: [("policy", policy.name), ("series", series)])
        }
        for (series, shares, dash) in [
            ("alerts", policy.canReceiveAlertsByDay, ""), ("quiet", policy.quietByDay, " stroke-dasharray=\"6 4\""),
        ] {
            let points = ([0.0] + shares).enumerated().map { "\(f(x($0.offset))),\(f(frame.y($0.element)))" }
            let label = series == "alerts" ? "\(policy.name): can receive alerts" : "\(policy.name): quiet delivery"
            svg +=
                "<polyline class=\"series\" data-policy=\"\(escape(policy.name))\" data-series=\"\(series)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\"\(dash) points=\"\(points.joined(separator: " "))\"><title>\(escape(label))</title></polyline>\n"
        }
        return svg
    }

    static func table(_ result: SimulationResult) -> String {
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        func perUser(_ value: Double) -> String { String(format: "%.2f", value) }
        var rows: [(String, [String])] = []
        for state in Reach.allCases {
            for day in result.reportedDays {
                rows.append(
                    (
                        "\(state.label), day \(day)",
                        result.policies.map { policy in
                            let interval = policy.interval(state, day: day)
                            return percent(policy.share(state, day: day))
                                + String(format: " [%.1f, %.1f]", interval.low * 100, interval.high * 100)
                        }
                    ))
            }
        }
        rows.append(("soft prompts / user", result.policies.map { perUser($0.softPromptsPerUser) }))
        rows.append(("system dialogs / user", result.policies.map { perUser($0.systemDialogsPerUser) }))
        rows.append(("settings prompts / user", result.policies.map { perUser($0.settingsPromptsPerUser) }))
        rows.append(
            (
                "median time to alerts",
                result.policies.map { $0.timeToAlerts.description }
            ))
        rows.append(("uninstalls", result.policies.map { "\($0.uninstalls)" }))
        rows.append(("policy errors", result.policies.map { "\($0.errors.values.reduce(0, +))" }))
        for name in Set(result.policies.flatMap(\.warnings.keys)).sorted() {
            rows.append(("warning \(name)", result.policies.map { "\($0.warnings[name] ?? 0)" }))
        }
        var html = "<table class=\"summary\">\n<tr><th class=\"row\"></th>"
        for policy in result.policies { html += "<th>\(escape(policy.name))</th>" }
        html += "</tr>\n"
        for (label, cells) in rows {
            html += "<tr><th class=\"row\">\(escape(label))</th>"
            for cell in cells { html += "<td class=\"num\">\(escape(cell))</td>" }
            html += "</tr>\n"
        }
        return html + "</table>\n"
    }

    /// The answer first, for the reader who reads nothing else: on the headline (who can
    /// receive alerts on the last day), each policy's share, and each one's difference from the
    /// first with its interval and verdict.
    static func answer(_ result: SimulationResult, allPairs: Bool = false, sensitivity: SensitivityResult? = nil) -> String {
        var html = "<section class=\"answer\">\n<h2>The answer</h2>\n"
        let day = result.days
        guard !result.policies.isEmpty else { return html + "</section>\n" }
        html +=
            "<p>Can receive alerts on day \(day): "
            + result.policies.map { "\(escape($0.name)) \(escape(SimulationResult.withInterval($0, .fullAlerts, day)))" }
            .joined(separator: "; ") + ".</p>\n"
        let family = result.comparisons(allPairs: allPairs)
        for comparison in family where comparison.day == day {
            let policy = result.policies[comparison.policy]
            guard policy.promptedAnyone else {
                if comparison.from == 0 {
                    html +=
                        "<p class=\"verdict\"><strong>\(escape(policy.name)) prompted nobody</strong>: no soft prompt, system "
                        + "dialog or settings prompt in \(result.users) users × \(day) days, so it has no difference of its own to "
                        + "report or to test live; see the warnings for what it waited for.</p>\n"
                }
                continue
            }
            let difference = comparison.difference
            html +=
                "<p class=\"verdict\"><strong>\(escape(policy.name)) vs "
                + "\(escape(result.policies[comparison.from].name)): "
                + escape(
                    String(
                        format: "%+.1f pp [%+.1f, %+.1f]", difference.value * 100, difference.interval.low * 100,
                        difference.interval.high * 100))
                + " — \(escape(difference.words))</strong>"
            if comparison.from == 0,
                let judged = sensitivity?.comparisons.first(where: { $0.policy == policy.name })
            {
                let range = judged.differenceRange
                html +=
                    "<br/>With the model's assumptions varied: <strong>\(escape(judged.headline.description))</strong> "
                    + "(the same verdict in \(judged.holds) of \(judged.drawn.count) drawn models; "
                    + escape(
                        String(format: "the difference runs %+.1f to %+.1f pp over them", range.lowerBound * 100, range.upperBound * 100))
                    + ")"
            }
            if comparison.from == 0 { html += costs(result, policy: comparison.policy) }
            html += "</p>\n"
        }
        if sensitivity == nil, result.policies.count > 1 {
            html +=
                "<p>Not checked against the model's assumptions: run with <code>--sensitivity 20</code> to see "
                + "whether the verdicts hold when the assumed figures change.</p>\n"
        }
        html +=
            "<p class=\"intervals\">Shaded bands and [low, high]: 95% intervals. They cover "
            + escape(SimulationResult.coverage) + ". Differences between policies are paired user by user; "
            + escape(result.correctionText(family, allPairs: allPairs)) + ".</p>\n"
        return html + "</section>\n"
    }

    /// What the answer adds under a policy's headline: the other side of reach, users who
    /// denied and users who deleted the app by the last day, each as a share with its interval
    /// and the difference from the first policy with its interval (uncorrected, and said so).
    static func costs(_ result: SimulationResult, policy index: Int) -> String {
        let day = result.days
        let policy = result.policies[index], first = result.policies[0]
        var parts: [String] = []
        for (label, state) in [("denied", Reach.denied as Reach?), ("without the app", nil)] {
            let difference = result.difference(policy: index, from: 0, state: state, day: day)
            parts.append(
                "\(label) on day \(day): \(SimulationResult.withInterval(policy, state, day)) against "
                    + "\(SimulationResult.withInterval(first, state, day)), "
                    + String(
                        format: "%+.1f pp [%+.1f, %+.1f]", difference.value * 100, difference.interval.low * 100,
                        difference.interval.high * 100) + " (\(difference.words))")
        }
        return "<br/>" + escape(parts.joined(separator: "; ")) + "."
    }

    /// Each experiment's table, per arm on days 1, 7 and the last, as the text report has it.
    static func experiments(_ result: SimulationResult) -> String {
        var html = ""
        for policy in result.policies {
            for experiment in policy.experiments {
                html += "<h2>\(escape(policy.name)), experiment \(escape(experiment)), per arm</h2>\n"
                html += rows(result.armRows(policy, experiment: experiment), className: "arms")
            }
        }
        return html
    }

    /// The live A/B test that would confirm each difference, and that it, not the simulation, decides.
    static func liveTest(_ result: SimulationResult, sensitivity: SensitivityResult? = nil) -> String {
        let lines = result.liveTestLines(sensitivity: sensitivity).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.count >= 3 else { return "" }
        var html = "<h2>Live A/B test to confirm</h2>\n<p>\(escape(lines[0]))</p>\n<ul class=\"live-test\">\n"
        for line in lines.dropFirst().dropLast() { html += "<li>\(escape(line))</li>\n" }
        return html + "</ul>\n<p><strong>\(escape(lines[lines.count - 1]))</strong></p>\n"
    }

    /// A table from rows of cells, the first row its header.
    static func rows(_ rows: [[String]], className: String) -> String {
        guard let header = rows.first else { return "" }
        var html = "<table class=\"\(className)\">\n<tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows.dropFirst() {
            html += "<tr>" + row.map { "<td class=\"num\">\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }

    /// A tick step for 0...days giving at most about ten ticks: 1, 2, 5, 10, 20, 50, ...
    static func niceStep(_ days: Int) -> Int {
        var step = 1
        let multipliers = [2, 5, 10]
        var base = 1
        while days / step > 10 {
            for multiplier in multipliers {
                step = base * multiplier
                if days / step <= 10 { return step }
            }
            base *= 10
        }
        return step
    }

    /// Text for the page (`MarkupText`).
    static func escape(_ text: String) -> String { MarkupText.escaped(text) }
}
