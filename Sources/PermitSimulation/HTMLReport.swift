import Foundation

/// `permit simulate --report FILE.html`: one self-contained page (no scripts, no external
/// files) with an SVG chart over the days of the users who can receive alerts (a solid line per
/// policy) and of those with quiet delivery only (a dashed line in the same colour), each over
/// its 95% band, and the summary
/// table. The markup is well-formed XML, so tools (and the tests) can parse it.
public enum HTMLReport {
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    /// The page for `result`; `modelFile` is named in its heading.
    public static func render(_ result: SimulationResult, modelFile: String? = nil) -> String {
        let title = "Permit simulation: " + result.policies.map(\.name).joined(separator: " vs ")
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>\(escape(title))</title>
            <style>
            body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
            h1 { font-size: 1.4em; }
            p.meta { color: #555; }
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
            <p class="meta">\(result.users) users × \(result.days) days, model \(escape(result.model))\(
                modelFile.map { " (" + escape($0) + ")" } ?? ""), seed \(result.seed)</p>

            """
        html += chart(result)
        html += table(result)
        if !result.warnings.isEmpty {
            html += "<ul class=\"warnings\">\n"
            for warning in result.warnings { html += "<li>warning: \(escape(warning.description))</li>\n" }
            html += "</ul>\n"
        }
        html += "</body>\n</html>\n"
        return html
    }

    static func chart(_ result: SimulationResult) -> String {
        let width = 760.0, height = 420.0
        let left = 70.0, right = 170.0, top = 20.0, bottom = 60.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let days = max(1, result.days)
        let highest = result.policies.flatMap { policy in
            (1...max(1, policy.days)).flatMap { day in
                policy.days == 0 ? [] : [policy.interval(.fullAlerts, day: day).high, policy.interval(.quiet, day: day).high]
            }
        }.max() ?? 0
        // The y axis: 0 to the next 10% above the highest value (at least 10%).
        let yMax = max(0.1, (highest * 10).rounded(.up) / 10)
        let yStep = yMax <= 0.5 ? 0.05 * (yMax > 0.25 ? 2 : 1) : 0.1 * (yMax > 0.6 ? 2 : 1)
        let xStep = niceStep(days)
        func x(_ day: Int) -> Double { left + plotWidth * Double(day) / Double(days) }
        func y(_ share: Double) -> Double { top + plotHeight * (1 - share / yMax) }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="Users who can receive alerts (solid) and with quiet delivery only (dashed) over the days, per policy">
            <title>Can receive alerts (full authorization, alerts on; solid) and quiet delivery (provisional; dashed) over the days</title>

            """
        // Grid and y ticks.
        svg += "<g class=\"axis y-axis\">\n"
        var tick = 0.0
        while tick <= yMax + 1e-9 {
            svg += "<line class=\"grid\" x1=\"\(f(left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(tick)))\"/>\n"
            svg += "<text class=\"tick\" x=\"\(f(left - 8))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(Int((tick * 100).rounded()))%</text>\n"
            tick += yStep
        }
        svg += "<line class=\"axis-line\" x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + plotHeight))\"/>\n"
        svg += "<text class=\"axis-label\" id=\"y-axis-label\" transform=\"translate(\(f(left - 50)),\(f(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">% of users</text>\n"
        svg += "</g>\n<g class=\"axis x-axis\">\n"
        svg += "<line class=\"axis-line\" x1=\"\(f(left))\" y1=\"\(f(top + plotHeight))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(top + plotHeight))\"/>\n"
        var day = 0
        while day <= days {
            svg += "<text class=\"tick\" x=\"\(f(x(day)))\" y=\"\(f(top + plotHeight + 18))\" text-anchor=\"middle\">\(day)</text>\n"
            day += xStep
        }
        svg += "<text class=\"axis-label\" id=\"x-axis-label\" x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 16))\" text-anchor=\"middle\">day</text>\n"
        svg += "</g>\n"
        // One line per policy: day 0 (nobody asked yet) then the end of each day.
        for (index, policy) in result.policies.enumerated() {
            let colour = palette[index % palette.count]
            svg += lines(policy, colour: colour, days: days, x: x, y: y)
            let legendY = top + 14 + Double(index) * 22
            svg += "<g class=\"legend\"><line x1=\"\(f(left + plotWidth + 16))\" y1=\"\(f(legendY - 4))\" x2=\"\(f(left + plotWidth + 40))\" y2=\"\(f(legendY - 4))\" stroke=\"\(colour)\" stroke-width=\"2.5\"/>"
            svg += "<text x=\"\(f(left + plotWidth + 46))\" y=\"\(f(legendY))\">\(escape(policy.name))</text></g>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// A policy's two lines (can receive alerts, solid; quiet, dashed), each over its 95% band:
    /// the band's upper bounds left to right, then its lower bounds back.
    static func lines(
        _ policy: PolicyResult, colour: String, days: Int, x: (Int) -> Double, y: (Double) -> Double
    ) -> String {
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var svg = ""
        for (series, reach) in [("alerts", Reach.fullAlerts), ("quiet", Reach.quiet)] {
            let intervals = (0...days).map { day in
                day == 0 || day > policy.days ? Interval(low: 0, high: 0) : policy.interval(reach, day: day)
            }
            let upper = intervals.enumerated().map { "\(f(x($0.offset))),\(f(y($0.element.high)))" }
            let lower = intervals.enumerated().reversed().map { "\(f(x($0.offset))),\(f(y($0.element.low)))" }
            svg += "<polygon class=\"band\" data-policy=\"\(escape(policy.name))\" data-series=\"\(series)\" fill=\"\(colour)\" fill-opacity=\"0.15\" stroke=\"none\" points=\"\((upper + lower).joined(separator: " "))\"/>\n"
        }
        for (series, shares, dash) in [
            ("alerts", policy.canReceiveAlertsByDay, ""), ("quiet", policy.quietByDay, " stroke-dasharray=\"6 4\""),
        ] {
            let points = ([0.0] + shares).enumerated().map { "\(f(x($0.offset))),\(f(y($0.element)))" }
            let label = series == "alerts" ? "\(policy.name): can receive alerts" : "\(policy.name): quiet delivery"
            svg += "<polyline class=\"series\" data-policy=\"\(escape(policy.name))\" data-series=\"\(series)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\"\(dash) points=\"\(points.joined(separator: " "))\"><title>\(escape(label))</title></polyline>\n"
        }
        return svg
    }

    static func table(_ result: SimulationResult) -> String {
        func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
        func perUser(_ value: Double) -> String { String(format: "%.2f", value) }
        var rows: [(String, [String])] = []
        for state in Reach.allCases {
            for day in result.reportedDays {
                rows.append(("\(state.label), day \(day)", result.policies.map { policy in
                    let interval = policy.interval(state, day: day)
                    return percent(policy.share(state, day: day))
                        + String(format: " [%.1f, %.1f]", interval.low * 100, interval.high * 100)
                }))
            }
        }
        rows.append(("soft prompts / user", result.policies.map { perUser($0.softPromptsPerUser) }))
        rows.append(("system dialogs / user", result.policies.map { perUser($0.systemDialogsPerUser) }))
        rows.append(("settings prompts / user", result.policies.map { perUser($0.settingsPromptsPerUser) }))
        rows.append(("median time to alerts", result.policies.map {
            $0.medianHoursToAlerts.map { SimulationResult.duration(hours: $0) } ?? "—"
        }))
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

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
