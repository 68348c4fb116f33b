import Foundation

/// A real browser's layout of a page: Debian's `chromium --headless`, so that a report's
/// test sees what a reader sees (a table cut off at the page's edge, a chart drawn at no size,
/// a title in the wrong place), which parsing the markup cannot show.
///
/// The page is copied with one script added at its end that measures the laid-out page and
/// writes what it found into the document as JSON; `--dump-dom` prints the document after the
/// script ran. The report itself never carries a script.
public enum Browser {
    /// What the browser laid out.
    public struct Layout: Decodable, Sendable {
        /// The viewport's width in CSS pixels.
        public let viewportWidth: Double
        /// The page's full width: more than the viewport when something sticks out of it.
        public let pageWidth: Double
        /// Every chart's laid-out box (width, height, right edge), in document order.
        public let charts: [Box]
        /// Every table's box and its row count, in document order.
        public let tables: [Table]
        /// The text of every `h2`, in document order.
        public let headings: [String]
        /// Per chart, the text of the heading (`h2` or `h3`) right before it (`""` when there is none).
        public let chartTitles: [String]
        /// The answer section's text (`""` when the page has none).
        public let answer: String
        /// The text of every `code` element laid out on more than one line: a command split at
        /// its hyphen (`--sensi` / `tivity 20`) cannot be read or copied.
        public let brokenCode: [String]

        /// A laid-out box.
        public struct Box: Decodable, Sendable {
            /// Its width.
            public let width: Double
            /// Its height.
            public let height: Double
            /// Its right edge, from the page's left.
            public let right: Double
        }

        /// A laid-out table.
        public struct Table: Decodable, Sendable {
            /// Its box.
            public let box: Box
            /// Its rows, the header's included.
            public let rows: Int
            /// Its class attribute.
            public let className: String
        }
    }

    /// The browser to use: `PERMIT_BROWSER`, else the first of chromium, chromium-browser,
    /// google-chrome on the PATH; `nil` when there is none (`make setup` installs chromium on
    /// Debian).
    public static var executable: URL? {
        if let path = ProcessInfo.processInfo.environment["PERMIT_BROWSER"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser", "google-chrome"] {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// What the script reports: sizes of charts and tables, headings, the title before each chart.
    static let measure = """
        <script>
        (function () {
          function box(e) { var r = e.getBoundingClientRect(); return { width: r.width, height: r.height, right: r.right + window.scrollX }; }
          function before(e) {
            var p = e.previousElementSibling;
            return p && (p.tagName === "H2" || p.tagName === "H3") ? p.textContent : "";
          }
          var svgs = Array.prototype.slice.call(document.querySelectorAll("body > svg"));
          var layout = {
            viewportWidth: window.innerWidth,
            pageWidth: document.documentElement.scrollWidth,
            charts: svgs.map(box),
            tables: Array.prototype.slice.call(document.querySelectorAll("table")).map(function (t) {
              return { box: box(t), rows: t.rows.length, className: t.className };
            }),
            headings: Array.prototype.slice.call(document.querySelectorAll("h2")).map(function (h) { return h.textContent; }),
            chartTitles: svgs.map(before),
            answer: (document.querySelector("section.answer") || { textContent: "" }).textContent,
            brokenCode: Array.prototype.slice.call(document.querySelectorAll("code")).filter(function (c) {
              return c.getClientRects().length > 1;
            }).map(function (c) { return c.textContent; })
          };
          var out = document.createElement("pre");
          out.id = "permit-layout";
          out.textContent = JSON.stringify(layout);
          document.body.appendChild(out);
        })();
        </script>
        """

    /// Lays out `html` at `width` CSS pixels and returns what the browser measured; also writes
    /// a screenshot to `screenshot` when given.
    public static func layout(of html: String, width: Int = 1280, screenshot: URL? = nil) async throws -> Layout {
        guard let browser = executable else {
            throw BrowserError("no browser: install chromium (make setup does on Debian) or set PERMIT_BROWSER")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("permit-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("page.html")
        guard let end = html.range(of: "</body>", options: .backwards) else { throw BrowserError("the page has no </body>") }
        try html.replacingCharacters(in: end, with: measure + "\n</body>").write(to: page, atomically: true, encoding: .utf8)
        // A profile of its own: two runs at once must not share one.
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--user-data-dir=\(directory.appendingPathComponent("profile").path)", "--window-size=\(width),1600",
        ]
        let dump = try await runProcess(browser, common + ["--virtual-time-budget=3000", "--dump-dom", page.absoluteString], limit: 120)
        guard dump.status == 0, let json = dump.stdout.firstMatch(of: /<pre id="permit-layout">(.*?)<\/pre>/)?.1 else {
            throw BrowserError("the browser laid out nothing (status \(dump.status)): \(dump.stderr.suffix(800))")
        }
        let text = String(json).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        if let screenshot {
            // The report as sent, without the measuring script.
            let plain = directory.appendingPathComponent("plain.html")
            try html.write(to: plain, atomically: true, encoding: .utf8)
            let shot = try await runProcess(browser, common + ["--screenshot=\(screenshot.path)", plain.absoluteString], limit: 120)
            guard shot.status == 0 else { throw BrowserError("the screenshot failed: \(shot.stderr.suffix(800))") }
        }
        return try JSONDecoder().decode(Layout.self, from: Data(text.utf8))
    }
}

/// A browser that could not be run or laid out nothing.
public struct BrowserError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
