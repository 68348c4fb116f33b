import Foundation

/// A small client of the W3C WebDriver protocol, driving Debian's `chromedriver` (package
/// chromium-driver) and through it a headless Chromium: the tests open a page, type, click and
/// read it as a person would. Plain HTTP and JSON over a loopback socket (`RawHTTP`), no Selenium.
public final class WebDriver: @unchecked Sendable {
    /// The chromedriver process this client started.
    private let driver: Process
    /// `http://127.0.0.1:PORT` of chromedriver.
    private let base: URL
    /// The browser session.
    private let session: String
    private let profile: URL
    private let log: URL

    /// Starts chromedriver on a port of its choosing and reads the port from its log. A driver
    /// that exits before saying its port (seen once, on a machine loaded by a sanitizer run) is
    /// started again, up to three times; its output, stderr included, goes to the log, which
    /// the error quotes.
    static func startDriver(_ executable: URL) async throws -> (Process, URL, Int) {
        var said = ""
        for _ in 0..<3 {
            // The log goes to a file, not a pipe: a pipe nobody reads fills and stops it.
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("permit-chromedriver-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = ["--port=0"]
            let output = try FileHandle(forWritingTo: log)
            process.standardOutput = output
            process.standardError = output
            try process.run()
            // chromedriver says "ChromeDriver was started successfully on port N."
            var port: Int?
            _ = try await poll(for: .seconds(30), every: .milliseconds(50)) {
                let printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                port = printed.firstMatch(of: /successfully on port (\d+)/).flatMap { Int($0.output.1) }
                return port != nil || !process.isRunning
            }
            if let port { return (process, log, port) }
            said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            stop(process)
        }
        throw BrowserError("chromedriver did not say its port, three times: \(said)")
    }

    /// The key WebDriver names an element reference by.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// chromedriver: `PERMIT_CHROMEDRIVER`, else `chromedriver` on the PATH; nil when there is none.
    public static var executable: URL? {
        if let path = ProcessInfo.processInfo.environment["PERMIT_CHROMEDRIVER"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("chromedriver")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Starts chromedriver on a free port and a headless browser session `width`×`height`.
    public init(width: Int = 1400, height: Int = 1000) async throws {
        guard let executable = Self.executable else {
            throw BrowserError(
                "no chromedriver: `make test` installs it (scripts/setup.sh browser installs Debian's chromium-driver), or set PERMIT_CHROMEDRIVER"
            )
        }
        guard let browser = Browser.executable else {
            throw BrowserError("no browser: `make test` installs chromium (scripts/setup.sh browser), or set PERMIT_BROWSER")
        }
        let (process, log, port) = try await Self.startDriver(executable)
        driver = process
        self.log = log
        base = URL(string: "http://127.0.0.1:\(port)")!
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("permit-webdriver-\(UUID().uuidString)")
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": browser.path,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                            "--window-size=\(width),\(height)", "--user-data-dir=\(profile.path)",
                        ],
                    ],
                ]
            ]
        ]
        var started: String?
        var failure = ""
        for _ in 0..<20 where started == nil {
            do {
                let answer = try await Self.call(base, "POST", "/session", capabilities)
                started = (answer as? [String: Any])?["sessionId"] as? String
                if started == nil { failure = "no session id in \(String(describing: answer))" }
            } catch {
                failure = "\(error)"
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        guard let started else {
            Self.stop(process)
            throw BrowserError("chromedriver started no browser session: \(failure)")
        }
        session = started
    }

    /// Ends the session and chromedriver.
    public func quit() async {
        _ = try? await call("DELETE", "")
        Self.stop(driver)
        try? FileManager.default.removeItem(at: profile)
        try? FileManager.default.removeItem(at: log)
    }

    /// Stops chromedriver: SIGTERM, then SIGKILL if it is still there after a second.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs `body` with a fresh browser, and always ends the browser and chromedriver after it.
    public static func with<T>(_ body: (WebDriver) async throws -> T) async throws -> T {
        let browser = try await WebDriver()
        do {
            let result = try await body(browser)
            await browser.quit()
            return result
        } catch {
            await browser.quit()
            throw error
        }
    }

    /// One WebDriver call: its `value`, or an error with WebDriver's message.
    static func call(_ base: URL, _ method: String, _ path: String, _ body: Any? = nil) async throws -> Any? {
        let port = base.port ?? 80
        let answer = try await RawHTTP.request(
            port: port, method: method, path: path, host: "127.0.0.1:\(port)",
            headers: body == nil ? [] : [("Content-Type", "application/json")],
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        let json = try JSONSerialization.jsonObject(with: answer.body, options: [.fragmentsAllowed]) as? [String: Any]
        let value = json?["value"]
        if answer.status >= 400 {
            let message = (value as? [String: Any])?["message"] as? String ?? answer.text
            throw BrowserError("WebDriver \(method) \(path): \(message)")
        }
        return value
    }

    func call(_ method: String, _ path: String, _ body: Any? = nil) async throws -> Any? {
        try await Self.call(base, method, "/session/\(session)" + path, body)
    }

    /// Opens `url`.
    public func open(_ url: URL) async throws {
        _ = try await call("POST", "/url", ["url": url.absoluteString])
    }

    /// The first element matching the CSS `selector`.
    public func element(_ selector: String) async throws -> String {
        let value = try await call("POST", "/element", ["using": "css selector", "value": selector])
        guard let id = (value as? [String: Any])?[Self.elementKey] as? String else { throw BrowserError("no element \(selector)") }
        return id
    }

    /// Every element matching `selector`.
    public func elements(_ selector: String) async throws -> [String] {
        let value = try await call("POST", "/elements", ["using": "css selector", "value": selector])
        return ((value as? [[String: Any]]) ?? []).compactMap { $0[Self.elementKey] as? String }
    }

    /// Clicks the element.
    public func click(_ element: String) async throws {
        _ = try await call("POST", "/element/\(element)/click", [String: Any]())
    }

    /// Types `text` into the element, as keystrokes.
    public func type(_ text: String, into element: String) async throws {
        _ = try await call("POST", "/element/\(element)/value", ["text": text])
    }

    /// The element's rendered text.
    public func text(of element: String) async throws -> String {
        (try await call("GET", "/element/\(element)/text") as? String) ?? ""
    }

    /// Runs `script` in the page and returns its result.
    public func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await call("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// A PNG of the window.
    public func screenshot() async throws -> Data {
        guard let base64 = try await call("GET", "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw BrowserError("no screenshot")
        }
        return data
    }

    /// Waits until `condition` holds (polling every 100 ms), or fails naming `what`.
    public func wait(
        _ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool
    ) async throws {
        if try await poll(for: timeout, every: .milliseconds(100), until: { (try? await condition()) == true }) { return }
        throw BrowserError("waited \(timeout) for \(what)")
    }
}
