import Foundation

/// The frame of one SVG chart of shares (the y axis in % of users): its size, the scale, the
/// grid, the two axes with their ticks and labels, and a 95% band. Shared by the policy report
/// (days on the x axis) and the sweep report (a param's values), so both draw alike.
struct ChartFrame {
    let width = 760.0, height = 420.0
    let left = 70.0, right = 170.0, top = 20.0, bottom = 60.0
    /// The top of the y axis, as a share.
    let yMax: Double
    /// Between two y ticks, as a share.
    let yStep: Double

    var plotWidth: Double { width - left - right }
    var plotHeight: Double { height - top - bottom }

    /// The y of a share (a higher share is drawn higher: a smaller y).
    func y(_ share: Double) -> Double { top + plotHeight * (1 - share / yMax) }

    /// The x of `position` out of `count` (0 at the left axis, `count` at the right end).
    func x(_ position: Double, of count: Double) -> Double { left + plotWidth * position / max(1, count) }

    /// A frame whose y axis reaches a round figure above `highest`: the policy report's 10%
    /// steps from 10% up, finer steps (0.1% to 5%) for the small shares a sweep may chart.
    static func forHighest(_ highest: Double, fine: Bool = false) -> ChartFrame {
        if fine, highest < 0.1 {
            let step = [0.001, 0.002, 0.005, 0.01, 0.02].first { highest / $0 <= 8 } ?? 0.02
            return ChartFrame(yMax: max(step, (highest / step).rounded(.up) * step), yStep: step)
        }
        let yMax = max(0.1, (highest * 10).rounded(.up) / 10)
        return ChartFrame(yMax: yMax, yStep: yMax <= 0.5 ? 0.05 * (yMax > 0.25 ? 2 : 1) : 0.1 * (yMax > 0.6 ? 2 : 1))
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// The opening `<svg>` with its accessible label and title.
    func open(label: String, title: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTMLReport.escape(label))">
        <title>\(HTMLReport.escape(title))</title>

        """
    }

    /// The grid, the y axis in % of users and the x axis with `ticks` (x, label) and `xLabel`.
    func axes(ticks: [(Double, String)], xLabel: String) -> String {
        let f = Self.f
        var svg = "<g class=\"axis y-axis\">\n"
        var tick = 0.0
        while tick <= yMax + 1e-9 {
            let text = yStep < 0.01 ? String(format: "%.1f%%", tick * 100) : "\(Int((tick * 100).rounded()))%"
            svg += "<line class=\"grid\" x1=\"\(f(left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(tick)))\"/>\n"
            svg += "<text class=\"tick\" x=\"\(f(left - 8))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(text)</text>\n"
            tick += yStep
        }
        svg += "<line class=\"axis-line\" x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + plotHeight))\"/>\n"
        svg +=
            "<text class=\"axis-label\" id=\"y-axis-label\" transform=\"translate(\(f(left - 50)),\(f(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">% of users</text>\n"
        svg += "</g>\n<g class=\"axis x-axis\">\n"
        svg +=
            "<line class=\"axis-line\" x1=\"\(f(left))\" y1=\"\(f(top + plotHeight))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(top + plotHeight))\"/>\n"
        for (position, label) in ticks {
            svg +=
                "<text class=\"tick\" x=\"\(f(position))\" y=\"\(f(top + plotHeight + 18))\" text-anchor=\"middle\">\(HTMLReport.escape(label))</text>\n"
        }
        svg +=
            "<text class=\"axis-label\" id=\"x-axis-label\" x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 16))\" text-anchor=\"middle\">\(HTMLReport.escape(xLabel))</text>\n"
        return svg + "</g>\n"
    }

    /// A 95% band: the upper bounds left to right, then the lower bounds back; `data` are its
    /// `data-` attributes (name, value).
    func band(_ points: [(x: Double, interval: Interval)], colour: String, data: [(String, String)]) -> String {
        let f = Self.f
        let upper = points.map { "\(f($0.x)),\(f(y($0.interval.high)))" }
        let lower = points.reversed().map { "\(f($0.x)),\(f(y($0.interval.low)))" }
        let attributes = data.map { " data-\($0.0)=\"\(HTMLReport.escape($0.1))\"" }.joined()
        return
            "<polygon class=\"band\"\(attributes) fill=\"\(colour)\" fill-opacity=\"0.15\" stroke=\"none\" points=\"\((upper + lower).joined(separator: " "))\"/>\n"
    }

    /// One legend entry, the `index`-th, in the right margin.
    func legend(_ index: Int, label: String, colour: String) -> String {
        let f = Self.f, legendY = top + 14 + Double(index) * 22
        return
            "<g class=\"legend\"><line x1=\"\(f(left + plotWidth + 16))\" y1=\"\(f(legendY - 4))\" x2=\"\(f(left + plotWidth + 40))\" y2=\"\(f(legendY - 4))\" stroke=\"\(colour)\" stroke-width=\"2.5\"/>"
            + "<text x=\"\(f(left + plotWidth + 46))\" y=\"\(f(legendY))\">\(HTMLReport.escape(label))</text></g>\n"
    }
}
